// The mixed money load of the resilience tests, sent over HTTP to real `croupier serve`
// processes: paid top-up webhooks, withdrawals with an Idempotency-Key, signed provider bets and
// an operator's top-up confirms, each resendable as it was first sent (same reference, key or
// transaction id). Also the checks that the books are whole afterwards.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { assignRole } from '../../src/modules/access/repository.ts';
import { sandboxSignature } from '../../src/modules/payments/gateways/sandbox.ts';
import { verifyLedger, type LedgerReport } from '../../src/modules/wallet/verify.ts';
import { Keyring, sha256 } from '../../src/platform/crypto.ts';
import type { Db } from '../../src/platform/db/client.ts';
import { signBody } from '../../src/platform/signature.ts';
import { postRaw, registerPlayer, type Answer, type Browser } from './instances.ts';

export const SANDBOX_SECRET = 'resilience-sandbox-secret';
const WALLET_SECRET = 'resilience-wallet-secret';
const FUNDS = 1_000_000n;
const PLAYERS = 4;

/** The configuration every instance of one test shares (besides DATABASE_URL and DATA_DIR). */
export function sharedEnv(appKey: Buffer): Record<string, string> {
  return {
    APP_KEY: `base64:${appKey.toString('base64')}`,
    PAYMENT_SANDBOX_SECRET: SANDBOX_SECRET,
    PIX_KEY: '123e4567-e12b-12d1-a456-426655440000',
  };
}

export type Outcome = 'success' | 'refusal';

export interface Operation {
  kind: 'top-up webhook' | 'withdrawal' | 'provider bet' | 'admin confirm';
  /** What the operation was built to get; the tests check the client got it. */
  expected: Outcome;
  userId: number;
  /** The balance change it makes when it succeeds. */
  cents: bigint;
  send(baseUrl: string): Promise<Answer>;
  /** The outcome an answer says, or undefined when it is not one (the client resends). */
  read(answer: Answer, resent: boolean): Outcome | undefined;
  /** The ledger key of its movement, known once it succeeded (a withdrawal learns its id). */
  ledgerKey?: string;
  /** A withdrawal's Idempotency-Key. */
  requestKey?: string;
  attempts: number;
  outcome?: Outcome;
}

export interface Workload {
  /** Interleaved, so any moment of the load has every kind in flight. */
  ops: Operation[];
  players: { browser: Browser; id: number }[];
  /** A player with no money: the refusals' sender. */
  broke: { browser: Browser; id: number };
  /** The super-admin who confirms top-ups. */
  operator: { browser: Browser; id: number };
  /** Ledger lines before the load (the players' funds). */
  fundingLines: number;
}

export interface Counts {
  webhooks: number;
  withdrawals: number;
  bets: number;
  confirms: number;
}

/**
 * Players (signed up over HTTP, on the given instances in turn), their funds, a provider with a
 * game and a redeemed session per player, pending top-ups and an operator; then the operations.
 * One webhook, withdrawal and bet in ten is built to be refused (another amount, no money).
 */
export async function prepareWorkload(admin: pg.Client, db: Db, urls: string[], appKey: Buffer, counts: Counts): Promise<Workload> {
  const run = randomBytes(4).toString('hex');
  const players: { browser: Browser; id: number }[] = [];
  for (let i = 0; i < PLAYERS; i++) players.push(await registerPlayer(urls[i % urls.length]!, `load-${run}-${i}@example.com`));
  const broke = await registerPlayer(urls[0]!, `load-${run}-broke@example.com`);
  const operator = await registerPlayer(urls[urls.length - 1]!, `load-${run}-admin@example.com`);
  await assignRole(db, operator.id, 'super-admin');
  for (const player of players) {
    await admin.query(`select ledger_apply($1::bigint, 'BRL', 'adjustment', $2::bigint, null, null, 'test funds', 'load-fund:' || $3)`, [
      player.id,
      FUNDS,
      String(player.id),
    ]);
  }

  // A provider with one game and a redeemed session per player, written as a launch would.
  const provider = (
    await admin.query<{ id: string }>(
      `insert into providers (name, code, adapter, wallet_secret) values ('Load', 'load', 'demo', $1) returning id`,
      [new Keyring(appKey).encrypt(WALLET_SECRET)],
    )
  ).rows[0]!.id;
  await admin.query(`insert into provider_games (provider_id, name, slug, code) values ($1, 'Load slot', 'load-slot', 'load-slot')`, [
    provider,
  ]);
  const tokens = new Map<number, string>();
  for (const player of [...players, broke]) {
    const token = randomBytes(20).toString('hex');
    tokens.set(player.id, token);
    await admin.query(
      `insert into game_sessions (launch_token_hash, session_token_hash, user_id, provider_id, provider_game_id, currency,
         launch_expires_at, redeemed_at, expires_at)
       select $1, $2, $3, $4, g.id, 'BRL', now(), now(), now() + interval '30 minutes' from provider_games g where g.code = 'load-slot'`,
      [sha256(`launch-${token}`), sha256(token), player.id, provider],
    );
  }

  // Pending top-ups as the gateway left them, paid by webhook or confirmed by the operator.
  const topup = async (userId: number, cents: number, reference: string) =>
    Number(
      (
        await admin.query<{ id: string }>(
          `insert into topups (public_id, user_id, payment_method_id, amount, currency, gateway, gateway_payment_id, qr_code)
           values ($1, $2, 1, $3, 'BRL', 'sandbox', $4, 'qr') returning id`,
          [randomBytes(16).toString('hex'), userId, cents, reference],
        )
      ).rows[0]!.id,
    );
  const refused = (i: number) => i % 10 === 9;

  const webhooks: Operation[] = [];
  for (let i = 0; i < counts.webhooks; i++) {
    const player = players[i % PLAYERS]!;
    const cents = 1000 + i;
    const reference = `LOAD-${run}-${i}`;
    const id = await topup(player.id, cents, reference);
    const raw = JSON.stringify({ payment_id: reference, status: 'paid', amount: (refused(i) ? cents + 1 : cents) / 100 });
    webhooks.push({
      kind: 'top-up webhook',
      expected: refused(i) ? 'refusal' : 'success',
      userId: player.id,
      cents: BigInt(cents),
      ledgerKey: `topup:${id}`,
      attempts: 0,
      send: (url) =>
        postRaw(`${url}/api/webhooks/payments/sandbox`, raw, {
          'x-signature': sandboxSignature(SANDBOX_SECRET, raw, Math.floor(Date.now() / 1000)),
        }),
      read: (answer) => (answer.status === 200 ? 'success' : answer.status === 422 ? 'refusal' : undefined),
    });
  }

  const withdrawals: Operation[] = [];
  for (let i = 0; i < counts.withdrawals; i++) {
    const player = refused(i) ? broke : players[i % PLAYERS]!;
    const requestKey = `load-${run}-withdrawal-${i}`;
    const op: Operation = {
      kind: 'withdrawal',
      expected: refused(i) ? 'refusal' : 'success',
      userId: player.id,
      cents: -BigInt(100 + i),
      requestKey,
      attempts: 0,
      send: (url) =>
        player.browser.call(
          url,
          'POST',
          '/api/withdrawals',
          { payee_name: 'Maria Silva', account_type: 'CPF', payee_account: '12345678909', amount: (100 + i) / 100 },
          { 'idempotency-key': requestKey },
        ),
      read: (answer) => {
        if (answer.status === 201) {
          op.ledgerKey = `withdrawal:${(answer.json as { data: { id: number } }).data.id}`;
          return 'success';
        }
        return answer.status === 422 ? 'refusal' : undefined;
      },
    };
    withdrawals.push(op);
  }

  const bets: Operation[] = [];
  for (let i = 0; i < counts.bets; i++) {
    const player = refused(i) ? broke : players[i % PLAYERS]!;
    const transaction = `load-${run}-bet-${i}`;
    const raw = JSON.stringify({
      token: tokens.get(player.id),
      transaction_id: transaction,
      round_id: `load-${run}-round-${i}`,
      game: 'load-slot',
      amount: (50 + i) / 100,
      currency: 'BRL',
    });
    bets.push({
      kind: 'provider bet',
      expected: refused(i) ? 'refusal' : 'success',
      userId: player.id,
      cents: -BigInt(50 + i),
      ledgerKey: `provider:${provider}:bet:${transaction}`,
      attempts: 0,
      send: (url) =>
        postRaw(`${url}/api/providers/${provider}/wallet/bet`, raw, {
          'x-signature': signBody(WALLET_SECRET, raw, Math.floor(Date.now() / 1000)),
        }),
      read: (answer) => {
        if (answer.status !== 200) return undefined;
        return (answer.json as { status: string }).status === 'OK' ? 'success' : 'refusal';
      },
    });
  }

  const confirms: Operation[] = [];
  for (let i = 0; i < counts.confirms; i++) {
    const player = players[i % PLAYERS]!;
    const cents = 2000 + i;
    const id = await topup(player.id, cents, `LOAD-${run}-confirm-${i}`);
    confirms.push({
      kind: 'admin confirm',
      expected: 'success',
      userId: player.id,
      cents: BigInt(cents),
      ledgerKey: `topup:${id}`,
      attempts: 0,
      send: (url) => operator.browser.call(url, 'POST', `/api/admin/topups/${id}/confirm`),
      read: (answer, resent) => {
        if (answer.status === 200) return 'success';
        // A resent confirm finds the top-up its unanswered first attempt paid: the operator's goal holds.
        if (resent && answer.status === 409 && (answer.json as { message?: string }).message === 'The top-up is already paid.') {
          return 'success';
        }
        return answer.status < 500 ? 'refusal' : undefined;
      },
    });
  }

  const lists = [webhooks, withdrawals, bets, confirms];
  const ops: Operation[] = [];
  const longest = Math.max(...lists.map((list) => list.length));
  for (let i = 0; i < longest; i++) for (const list of lists) if (i < list.length) ops.push(list[i]!);
  const fundingLines = await countLines(admin);
  return { ops, players, broke, operator, fundingLines };
}

export async function countLines(admin: pg.Client): Promise<number> {
  return (await admin.query<{ n: number }>('select count(*)::int as n from ledger_entries')).rows[0]!.n;
}

/**
 * Every money record has its ledger line and every line its record, whatever was interrupted:
 * a paid top-up and its `topup:<id>` line, a withdrawal and its hold, an accepted bet, its round
 * and its line.
 */
export async function assertNothingHalfWritten(admin: pg.Client): Promise<void> {
  const orphans = await admin.query<{ what: string; id: string }>(`
    select 'paid top-up without its line' as what, t.id::text as id from topups t
      where t.status = 1 and not exists (select 1 from ledger_entries e where e.idempotency_key = 'topup:' || t.id)
    union all
    select 'top-up line without a paid top-up', e.idempotency_key from ledger_entries e
      where e.type = 'topup' and not exists (select 1 from topups t where 'topup:' || t.id = e.idempotency_key and t.status = 1)
    union all
    select 'withdrawal without its hold', w.id::text from withdrawals w
      where not exists (select 1 from ledger_entries e where e.idempotency_key = 'withdrawal:' || w.id)
    union all
    select 'hold without its withdrawal', e.idempotency_key from ledger_entries e
      where e.type = 'withdrawal' and not exists (select 1 from withdrawals w where 'withdrawal:' || w.id = e.idempotency_key)
    union all
    select 'accepted bet without its line', x.transaction_id from provider_transactions x
      where x.kind = 'bet' and x.outcome = 'OK'
        and not exists (select 1 from ledger_entries e where e.idempotency_key = 'provider:' || x.provider_id || ':bet:' || x.transaction_id)
    union all
    select 'bet line without its accepted call', e.idempotency_key from ledger_entries e
      where e.type = 'bet' and not exists (select 1 from provider_transactions x
        where x.kind = 'bet' and x.outcome = 'OK' and 'provider:' || x.provider_id || ':bet:' || x.transaction_id = e.idempotency_key)`);
  assert.deepEqual(orphans.rows, [], 'no money record without its line, no line without its record');
}

/**
 * Once every operation has its outcome: each success is in the ledger exactly once under its
 * key, no refusal moved money, each withdrawal key made at most one withdrawal, the ledger holds
 * nothing else, each balance is what the client computes, and ledger:verify is clean.
 */
export async function assertBooks(admin: pg.Client, db: Db, workload: Workload): Promise<{ lines: number; report: LedgerReport }> {
  const { ops } = workload;
  for (const op of ops) assert.equal(op.outcome, op.expected, `${op.kind} for user ${op.userId}`);
  const succeeded = ops.filter((op) => op.outcome === 'success');
  const refused = ops.filter((op) => op.outcome === 'refusal');

  const found = await admin.query<{ key: string; n: number }>(
    'select idempotency_key as key, count(*)::int as n from ledger_entries where idempotency_key = any($1) group by 1',
    [succeeded.map((op) => op.ledgerKey!)],
  );
  const lines = new Map(found.rows.map((row) => [row.key, row.n]));
  for (const op of succeeded) assert.equal(lines.get(op.ledgerKey!), 1, `${op.kind} ${op.ledgerKey} is in the ledger once`);
  const leaked = await admin.query('select idempotency_key from ledger_entries where idempotency_key = any($1)', [
    refused.filter((op) => op.ledgerKey !== undefined).map((op) => op.ledgerKey!),
  ]);
  assert.deepEqual(leaked.rows, [], 'a refused webhook or bet moved no money');

  const withdrawalOps = ops.filter((op) => op.requestKey !== undefined);
  const rows = await admin.query<{ key: string; n: number }>(
    'select request_key as key, count(*)::int as n from withdrawals where request_key = any($1) group by 1',
    [withdrawalOps.map((op) => op.requestKey!)],
  );
  const perKey = new Map(rows.rows.map((row) => [row.key, row.n]));
  for (const op of withdrawalOps) {
    assert.equal(
      perKey.get(op.requestKey!) ?? 0,
      op.outcome === 'success' ? 1 : 0,
      `withdrawal ${op.requestKey}: one row when it succeeded`,
    );
  }

  const total = await countLines(admin);
  assert.equal(total, workload.fundingLines + succeeded.length, 'the ledger holds the funding and one line per success, nothing else');
  for (const player of [...workload.players, workload.broke]) {
    const moved = succeeded.filter((op) => op.userId === player.id).reduce((sum, op) => sum + op.cents, 0n);
    const balance = await admin.query<{ amount: string }>(`select amount from balances where user_id = $1 and currency = 'BRL'`, [
      player.id,
    ]);
    const funded = player === workload.broke ? 0n : FUNDS;
    assert.equal(BigInt(balance.rows[0]?.amount ?? 0), funded + moved, `balance of user ${player.id}`);
  }
  await assertNothingHalfWritten(admin);
  const report = await verifyLedger(db);
  assert.deepEqual(report.problems, [], 'ledger:verify is clean');
  return { lines: total, report };
}
