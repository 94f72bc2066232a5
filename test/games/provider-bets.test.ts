import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { verifyLedger } from '../../src/modules/wallet/verify.ts';
import { useApp, type SignedIn, type TestApp } from '../helpers/app.ts';
import { fund } from '../withdrawals/helpers.ts';
import { createGame, createProvider, demoDriver, launch, send, type TestProvider } from './helpers.ts';

interface Bet {
  id: number;
  user_id: number;
  provider_id: number;
  provider_game_id: number;
  round_id: string;
  bet_amount: number;
  win_amount: number;
  currency: string;
  status: number;
  settled_at: string | null;
  created_at: string;
  updated_at: string;
  transactions?: { transaction_id: string; kind: string; amount: number; outcome: string; payload: Record<string, unknown> }[];
}

interface Page {
  data: Bet[];
  meta: { total: number; per_page: number };
}

let n = 0;

/** A player with a redeemed session at `provider`, and a way to play rounds there. */
async function seat(t: TestApp, provider: TestProvider, player: SignedIn) {
  const game = await createGame(t, provider.id);
  await fund(t, player.id, 100_000n);
  const launched = await launch(t, { userId: player.id, providerId: provider.id, gameId: game.id });
  const session = (await send(t, demoDriver, provider, { action: 'balance', token: launched.token })).answer!.session!;
  return {
    game,
    /** The session token its bets carry. */
    session,
    /** A round: a bet, then (unless `open`) a closing win, or a refund. */
    async round(stake: bigint, end: { win: bigint } | 'open' | 'refund'): Promise<string> {
      const roundId = `round-${process.pid}-${++n}`;
      const betId = `${roundId}-bet`;
      const placed = await send(t, demoDriver, provider, {
        action: 'bet',
        token: session,
        transactionId: betId,
        roundId,
        game: game.code,
        amount: stake,
      });
      assert.equal(placed.answer?.status, 'OK', placed.res.text);
      if (end === 'refund') {
        await send(t, demoDriver, provider, { action: 'refund', transactionId: `${roundId}-refund`, betTransactionId: betId });
      } else if (end !== 'open') {
        await send(t, demoDriver, provider, {
          action: 'win',
          transactionId: `${roundId}-win`,
          betTransactionId: betId,
          roundId,
          amount: end.win,
          roundClosed: true,
        });
      }
      return roundId;
    },
  };
}

describe('provider bets: the player’s list and the operators’', () => {
  const ctx = useApp();

  test('a player lists only their own rounds, newest first, filtered by status and provider; a guest gets 401', async () => {
    const t = ctx();
    const [first, second] = [await createProvider(t), await createProvider(t)];
    const alice = await t.player();
    const bob = await t.player();
    const aliceAtFirst = await seat(t, first, alice);
    const aliceAtSecond = await seat(t, second, alice);
    const bobAtFirst = await seat(t, first, bob);
    const won = await aliceAtFirst.round(1_000n, { win: 2_500n });
    const open = await aliceAtFirst.round(500n, 'open');
    const refunded = await aliceAtSecond.round(700n, 'refund');
    await bobAtFirst.round(900n, { win: 0n });

    const all = (await alice.client.get('/api/provider-bets')).json as Page;
    assert.deepEqual(
      all.data.map((bet) => [bet.round_id, bet.user_id, bet.bet_amount, bet.win_amount, bet.status]),
      [
        [refunded, alice.id, 7, 0, 2],
        [open, alice.id, 5, 0, 0],
        [won, alice.id, 10, 25, 1],
      ],
    );
    assert.equal(all.meta.total, 3);
    const record = all.data[2]!;
    assert.deepEqual(Object.keys(record).sort(), [
      'bet_amount',
      'created_at',
      'currency',
      'id',
      'provider_game_id',
      'provider_id',
      'round_id',
      'settled_at',
      'status',
      'updated_at',
      'user_id',
      'win_amount',
    ]);
    assert.deepEqual([record.provider_id, record.provider_game_id, record.currency], [first.id, aliceAtFirst.game.id, 'BRL']);
    assert.match(record.settled_at!, /^\d{4}-\d{2}-\d{2}T.*Z$/);

    const open0 = (await alice.client.get('/api/provider-bets?status=0')).json as Page;
    assert.deepEqual(
      open0.data.map((bet) => bet.round_id),
      [open],
    );
    const atSecond = (await alice.client.get(`/api/provider-bets?provider_id=${second.id}`)).json as Page;
    assert.deepEqual(
      atSecond.data.map((bet) => bet.round_id),
      [refunded],
    );
    const today = new Date().toISOString().slice(0, 10);
    assert.equal(((await alice.client.get(`/api/provider-bets?from=${today}&to=${today}`)).json as Page).meta.total, 3);
    assert.equal(((await alice.client.get('/api/provider-bets?to=2000-01-01')).json as Page).meta.total, 0);
    assert.equal((await alice.client.get('/api/provider-bets?status=3')).status, 422);
    // Bob's list holds Bob's round alone, whatever he asks for.
    const bobs = (await bob.client.get(`/api/provider-bets?provider_id=${first.id}`)).json as Page;
    assert.deepEqual(
      bobs.data.map((bet) => bet.user_id),
      [bob.id],
    );
    const guest = t.client();
    assert.equal((await guest.get('/api/provider-bets')).status, 401);
  });

  test('operators with provider-bets.view filter every player’s rounds; the detail carries each call’s payload, its token redacted; players get 403', async () => {
    const t = ctx();
    const provider = await createProvider(t);
    const carol = await t.player();
    const dave = await t.player();
    const carolSeat = await seat(t, provider, carol);
    const daveSeat = await seat(t, provider, dave);
    const carolRound = await carolSeat.round(1_200n, { win: 3_000n });
    await daveSeat.round(400n, 'open');
    const admin = await t.withRole('admin');

    const carols = (await admin.client.get(`/api/admin/provider-bets?user_id=${carol.id}`)).json as Page;
    assert.deepEqual(
      carols.data.map((bet) => bet.round_id),
      [carolRound],
    );
    const byProvider = (await admin.client.get(`/api/admin/provider-bets?provider_id=${provider.id}&status=0`)).json as Page;
    assert.deepEqual(
      byProvider.data.map((bet) => bet.user_id),
      [dave.id],
    );

    const detail = await admin.client.get(`/api/admin/provider-bets/${carols.data[0]!.id}`);
    assert.equal(detail.status, 200, detail.text);
    const bet = (detail.json as { data: Bet }).data;
    assert.deepEqual([bet.bet_amount, bet.win_amount, bet.status], [12, 30, 1]);
    assert.deepEqual(
      bet.transactions!.map((call) => [call.kind, call.transaction_id, call.amount, call.outcome]),
      [
        ['bet', `${carolRound}-bet`, 12, 'OK'],
        ['win', `${carolRound}-win`, 30, 'OK'],
      ],
    );
    // The session token stakes Carol's money: it is kept nowhere, so no operator sees it.
    assert.deepEqual(bet.transactions![0]!.payload, {
      token: '[redacted]',
      transaction_id: `${carolRound}-bet`,
      round_id: carolRound,
      game: carolSeat.game.code,
      amount: 12,
      currency: 'BRL',
    });
    assert.equal(detail.text.includes(carolSeat.session), false);
    assert.equal((await admin.client.get('/api/admin/provider-bets/999999')).status, 404);

    assert.equal((await carol.client.get('/api/admin/provider-bets')).status, 403);
    assert.equal((await carol.client.get(`/api/admin/provider-bets/${bet.id}`)).status, 403);
    // Read-only: no route changes a round.
    assert.equal((await admin.client.delete(`/api/admin/provider-bets/${bet.id}`)).status, 405);
  });

  test('ledger:verify is clean', async () => {
    assert.deepEqual((await verifyLedger(ctx().db)).problems, []);
  });
});
