import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import {
  CANCEL_DRAW_OUTCOMES,
  cancelDraw,
  PLACE_DRAW_BET_OUTCOMES,
  revealDraw,
  SETTLE_DRAW_OUTCOMES,
  sealedSeed,
  settleDraw,
} from '../../src/modules/draws/repository.ts';
import { PROVIDER_WIN_REVIEW_OUTCOMES } from '../../src/modules/games/held-wins/repository.ts';
import { currentReferralSettings, currentTopupSettings, currentWithdrawSettings } from '../../src/modules/settings/repository.ts';
import { prepareReceivePixPayment, RECEIVE_PIX_PAYMENT_OUTCOMES } from '../../src/modules/pix/receive.ts';
import { PAY_TOPUP_OUTCOMES, preparePayTopup } from '../../src/modules/topups/mark-paid.ts';
import { TOPUP_STATUS, TOPUP_STATUSES, topupStatusCodes } from '../../src/modules/topups/repository.ts';
import {
  applyLedgerOperation,
  IdempotencyMismatchError,
  InsufficientFundsError,
  LEDGER_REFUSALS,
  type LedgerOperation,
} from '../../src/modules/wallet/ledger.ts';
import {
  prepareRequestWithdrawal,
  REQUEST_WITHDRAWAL_OUTCOMES,
  transitionWithdrawal,
  WITHDRAWAL_TRANSITION_OUTCOMES,
} from '../../src/modules/withdrawals/repository.ts';
import { WITHDRAWAL_STATUS } from '../../src/modules/withdrawals/tables.ts';
import { Keyring } from '../../src/platform/crypto.ts';
import { one } from '../../src/platform/db/client.ts';
import { listFunctions } from '../../src/platform/db/functions.ts';
import { useApp } from '../helpers/app.ts';
import { insertGame, ManualClock, openDraw, placeDrawBet } from '../draws/helpers.ts';
import { CPF, fund } from '../withdrawals/helpers.ts';
import { createTopup } from './helpers.ts';

/** Each money function with outcomes, and the outcomes its TypeScript side declares. */
const DECLARED: Record<string, readonly string[]> = {
  pay_topup: PAY_TOPUP_OUTCOMES,
  receive_pix_payment: RECEIVE_PIX_PAYMENT_OUTCOMES,
  request_withdrawal: REQUEST_WITHDRAWAL_OUTCOMES,
  withdrawal_transition: WITHDRAWAL_TRANSITION_OUTCOMES,
  place_draw_bet: PLACE_DRAW_BET_OUTCOMES,
  settle_draw: SETTLE_DRAW_OUTCOMES,
  cancel_draw: CANCEL_DRAW_OUTCOMES,
  // Each answered in test/games/win-ceiling.test.ts, through the admin routes that call it.
  provider_wallet_win_review: PROVIDER_WIN_REVIEW_OUTCOMES,
};

const withoutComments = (text: string) => text.replace(/--[^\n]*/g, '');

/**
 * The outcomes a function's file can answer: every literal assigned to its `outcome` out column
 * (`x.outcome := …`, a field of a record such as provider_wallet_answer, is not one).
 */
function outcomesInFile(text: string): string[] {
  const found = new Set<string>();
  for (const [, expression] of withoutComments(text).matchAll(/(?<![\w.])outcome\s*:=([^;]*);/g)) {
    for (const [, literal] of expression!.matchAll(/'([^']*)'/g)) found.add(literal!);
  }
  return [...found].sort();
}

/**
 * Runs each declared outcome's call, in order, and checks it answers that outcome. Keyed by the
 * declaration, so an outcome declared without a call here does not compile.
 */
async function answersEach<O extends string>(fn: string, calls: Record<O, () => Promise<string>>): Promise<void> {
  for (const [expected, call] of Object.entries<() => Promise<string>>(calls)) {
    assert.equal(await call(), expected, `${fn}: the call meant to answer ${expected}`);
  }
}

describe('money functions answer exactly their declared outcomes', () => {
  test('each function file writes the outcomes its TypeScript side declares, no more and no fewer', () => {
    const files = listFunctions();
    for (const file of files) {
      const written = outcomesInFile(file.sql);
      if (written.length === 0) continue;
      assert.ok(file.name in DECLARED, `${file.name} answers outcomes (${written.join(', ')}) that nothing declares`);
      assert.deepEqual(written, [...DECLARED[file.name]!].sort(), `${file.name}: its file ⇔ its declaration`);
    }
    for (const name of Object.keys(DECLARED))
      assert.ok(
        files.some((file) => file.name === name),
        `${name} has a file`,
      );
    const ledger = files.find((file) => file.name === 'ledger_apply')!;
    const raised = [...withoutComments(ledger.sql).matchAll(/errcode\s*=\s*'([^']+)'/g)].map((match) => match[1]).sort();
    assert.deepEqual(raised, Object.values(LEDGER_REFUSALS).sort(), 'ledger_apply: the SQLSTATEs it raises ⇔ LEDGER_REFUSALS');
  });

  const clock = new ManualClock('2026-11-26T10:00:00.000Z');
  const ctx = useApp({}, { clock });

  test('ledger_apply: a line, its replay, and both refusals', async () => {
    const t = ctx();
    const player = await t.player();
    const op: LedgerOperation = { userId: player.id, currency: 'BRL', type: 'adjustment', amount: 500n, idempotencyKey: 'outcome:ledger' };
    const apply = async (operation: LedgerOperation) => {
      try {
        return (await applyLedgerOperation(t.db, operation)).replayed ? 'replayed' : 'applied';
      } catch (error) {
        if (error instanceof InsufficientFundsError) return LEDGER_REFUSALS.insufficientFunds;
        if (error instanceof IdempotencyMismatchError) return LEDGER_REFUSALS.keyMismatch;
        throw error;
      }
    };
    await answersEach<'applied' | 'replayed' | (typeof LEDGER_REFUSALS)[keyof typeof LEDGER_REFUSALS]>('ledger_apply', {
      applied: () => apply(op),
      replayed: () => apply(op),
      [LEDGER_REFUSALS.insufficientFunds]: () => apply({ ...op, amount: -501n, idempotencyKey: 'outcome:ledger:debit' }),
      [LEDGER_REFUSALS.keyMismatch]: () => apply({ ...op, amount: 600n }),
    });
  });

  test('pay_topup, topup_status and topup_gift_key', async () => {
    const t = ctx();
    const player = await t.player();
    const topup = await createTopup(player.client, 10);
    const pay = preparePayTopup(t.db);
    const settings = { topup: (await currentTopupSettings(t.db)).id, referral: (await currentReferralSettings(t.db)).id };
    const call = async (topupId: number, topupSettingsId = settings.topup) => {
      const [row] = await pay.execute({
        topupId,
        gateway: null,
        paymentId: null,
        amount: 1000n,
        via: 'webhook',
        actorId: null,
        allowExpired: true,
        topupSettingsId,
        referralSettingsId: settings.referral,
        giftFirst: 150n,
        giftLater: 150n,
        referralReward: 0n,
      });
      return row!;
    };
    await answersEach<(typeof PAY_TOPUP_OUTCOMES)[number]>('pay_topup', {
      unknown: async () => (await call(0)).outcome,
      stale: async () => (await call(topup.id, 0)).outcome,
      paid: async () => {
        const row = await call(topup.id);
        assert.deepEqual(
          [row.topupId, row.status, row.amount, row.gift, row.referralReward],
          [topup.id, TOPUP_STATUS.paid, 1000n, 150n, 0n],
        );
        return row.outcome;
      },
      not_payable: async () => {
        const row = await call(topup.id);
        assert.deepEqual([row.status, row.amount], [TOPUP_STATUS.paid, 1000n]);
        return row.outcome;
      },
    });

    // The gift line pay_topup wrote is under the key topup_gift_key names.
    const gift = await one<{ key: string; amount: string }>(
      t.db,
      sql`select topup_gift_key(${topup.id}::bigint) as key,
        (select amount from ledger_entries where idempotency_key = topup_gift_key(${topup.id}::bigint)) as amount`,
    );
    assert.deepEqual([gift!.key, BigInt(gift!.amount)], [`topup:${topup.id}:gift`, 150n]);

    // topup_status answers the codes TOPUP_STATUSES declares: a stored status as is, an old pending one expired.
    const status = async (stored: number, age: string) =>
      (await one<{ status: number }>(
        t.db,
        sql`select topup_status(${stored}::smallint, now() - ${age}::interval, ${topupStatusCodes('pending', 'expired')}) as status`,
      ))!.status;
    const name = async (stored: number, age: string) => TOPUP_STATUSES.nameOf(await status(stored, age));
    await answersEach<keyof typeof TOPUP_STATUS>('topup_status', {
      pending: () => name(TOPUP_STATUS.pending, '23 hours 59 minutes'),
      paid: () => name(TOPUP_STATUS.paid, '2 days'),
      cancelled: () => name(TOPUP_STATUS.cancelled, '2 days'),
      expired: () => name(TOPUP_STATUS.pending, '24 hours 1 minute'),
      returned: () => name(TOPUP_STATUS.returned, '2 days'),
    });
  });

  test('receive_pix_payment', async () => {
    const t = ctx();
    const player = await t.player();
    // Any charge will do: the function finds the top-up by its gateway and txid.
    const topup = await createTopup(player.client, 10);
    const receive = prepareReceivePixPayment(t.db);
    const settings = { topup: (await currentTopupSettings(t.db)).id, referral: (await currentReferralSettings(t.db)).id };
    const call = async (input: { endToEndId: string; txid?: string; amount?: bigint; refusal?: string; topupSettingsId?: number }) => {
      const [row] = await receive.execute({
        methodId: 1,
        gateway: 'sandbox',
        endToEndId: input.endToEndId,
        txid: input.txid ?? topup.gateway_payment_id,
        amount: input.amount ?? 1000n,
        paidAt: new Date().toISOString(),
        payerCpf: '12345678909',
        payerCnpj: null,
        payerName: 'Fulano',
        refusal: input.refusal ?? null,
        refusalText: input.refusal === undefined ? null : 'returned',
        returnId: `D${input.endToEndId}`,
        topupSettingsId: input.topupSettingsId ?? settings.topup,
        referralSettingsId: settings.referral,
        giftFirst: 0n,
        giftLater: 0n,
        referralReward: 0n,
      });
      return row!;
    };
    const e2e = (n: number) => `E09089356202611260000OUTCOME${String(n).padStart(4, '0')}`;
    await answersEach<(typeof RECEIVE_PIX_PAYMENT_OUTCOMES)[number]>('receive_pix_payment', {
      unknown: async () => (await call({ endToEndId: e2e(1), txid: 'crpnosuchcharge0000000000000' })).outcome,
      stale: async () => (await call({ endToEndId: e2e(2), topupSettingsId: 0 })).outcome,
      not_payable: async () => (await call({ endToEndId: e2e(3), amount: 999n })).outcome,
      credited: async () => {
        const row = await call({ endToEndId: e2e(4) });
        assert.deepEqual([row.topupId, row.status, row.returnStatus], [topup.id, TOPUP_STATUS.paid, null]);
        return row.outcome;
      },
      replayed: async () => (await call({ endToEndId: e2e(4), refusal: 'topup_paid' })).outcome,
      returned: async () => {
        const row = await call({ endToEndId: e2e(5), refusal: 'topup_paid' });
        assert.deepEqual([row.status, row.returnStatus], [TOPUP_STATUS.paid, 'pending']);
        return row.outcome;
      },
    });
    // Nothing the refused calls (unknown, stale, not payable) was kept; the credited and the returned payment were.
    const kept = await one<{ n: number }>(t.db, sql`select count(*)::int as n from pix_payments where topup_id = ${topup.id}`);
    assert.equal(kept!.n, 2);
  });

  test('request_withdrawal and withdrawal_transition', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const request = prepareRequestWithdrawal(t.db);
    const settingsId = (await currentWithdrawSettings(t.db)).id;
    const call = async (overrides: { settingsId?: number; minForPlayer?: bigint; requestDigest?: string } = {}) => {
      const [row] = await request.execute({
        userId: player.id,
        currency: 'BRL',
        payeeName: 'Maria Silva',
        accountType: 'CPF',
        payeeAccount: CPF,
        amount: 1000n,
        fee: 10n,
        settingsId,
        minForPlayer: 0n,
        minForPartner: 0n,
        totalBet: 0n,
        referredUsers: 0n,
        totalToppedUp: 0n,
        requestKey: 'outcome:withdrawal',
        requestDigest: 'first',
        ...overrides,
      });
      return row!;
    };
    let id = 0;
    await answersEach<(typeof REQUEST_WITHDRAWAL_OUTCOMES)[number]>('request_withdrawal', {
      stale: async () => (await call({ settingsId: 0 })).outcome,
      refused: async () => {
        const row = await call({ minForPlayer: 100_000n });
        assert.equal(row.minRequired, 100_000n);
        return row.outcome;
      },
      created: async () => {
        const row = await call();
        // The withdrawal comes back as every reader selects it: cents as bigint, times as Dates.
        const withdrawal = row.withdrawal!;
        assert.deepEqual([withdrawal.amount, withdrawal.fee, withdrawal.status], [1000n, 10n, WITHDRAWAL_STATUS.pending]);
        assert.ok(withdrawal.created_at instanceof Date && !Number.isNaN(withdrawal.created_at.getTime()));
        assert.equal(withdrawal.reviewed_at, null);
        id = row.withdrawalId!;
        assert.equal(withdrawal.id, id);
        return row.outcome;
      },
      replayed: async () => {
        const row = await call();
        assert.equal(row.withdrawal!.id, id);
        return row.outcome;
      },
      key_reused: async () => (await call({ requestDigest: 'another' })).outcome,
    });

    const transition = async (withdrawalId: number) => {
      const outcome = await transitionWithdrawal(t.db, {
        id: withdrawalId,
        action: 'approve',
        actorId: player.id,
        reason: null,
        gateway: 'sandbox',
        pspGateways: ['sandbox'],
      });
      if (outcome.outcome !== 'unknown') assert.equal(outcome.status, WITHDRAWAL_STATUS.approved);
      return outcome.outcome;
    };
    // An admin's reject of a payout approved through a gateway whose PSP alone settles it.
    const rejectAtPsp = async () =>
      (
        await transitionWithdrawal(t.db, {
          id,
          action: 'reject',
          actorId: player.id,
          reason: 'no',
          gateway: null,
          pspGateways: ['sandbox'],
        })
      ).outcome;
    await answersEach<(typeof WITHDRAWAL_TRANSITION_OUTCOMES)[number]>('withdrawal_transition', {
      unknown: () => transition(0),
      done: () => transition(id),
      conflict: () => transition(id),
      psp_settles: rejectAtPsp,
    });
  });

  test('place_draw_bet, settle_draw and cancel_draw', async () => {
    const t = ctx();
    const player = await t.player();
    await fund(t, player.id, 10_000n);
    const game = await insertGame(t.db, { type: 'double' });
    const resting = await insertGame(t.db, { type: 'double', status: 2 });
    await t.app.drawScheduler.tick(clock.now());
    const draw = await openDraw(player.client, game.code);

    const bet = async (overrides: Partial<Parameters<typeof placeDrawBet>[1]> = {}) =>
      (
        await placeDrawBet(t.db, {
          userId: player.id,
          gameId: game.id,
          drawId: draw.id,
          now: clock.now(),
          requestKey: 'outcome:bet',
          requestDigest: 'first',
          ...overrides,
        })
      ).outcome;
    await answersEach<(typeof PLACE_DRAW_BET_OUTCOMES)[number]>('place_draw_bet', {
      unknown: () => bet({ gameId: 0 }),
      maintenance: () => bet({ gameId: resting.id }),
      stale: () => bet({ gameSettings: '{"min_bet": 5}' }),
      closed: () => bet({ drawId: 0 }),
      placed: () => bet(),
      replayed: () => bet(),
      key_reused: () => bet({ requestDigest: 'another' }),
      // REGULATION=br: a player without limits (responsible_gambling_refusal) bets nothing.
      refused: async () =>
        (
          await placeDrawBet(
            t.db,
            { userId: player.id, gameId: game.id, drawId: draw.id, now: clock.now(), requestKey: 'outcome:refused' },
            true,
          )
        ).outcome,
    });
    // A second bet, so that a batch of one leaves one to settle.
    assert.equal(await bet({ requestKey: null, requestDigest: null }), 'placed');

    const settle = async (drawId: number, limit = 100) => (await settleDraw(t.db, drawId, limit)).outcome;
    await answersEach<(typeof SETTLE_DRAW_OUTCOMES)[number]>('settle_draw', {
      unknown: () => settle(0),
      not_drawn: () => settle(draw.id),
      partial: async () => {
        assert.ok(await revealDraw(t.db, draw.id, 'd'.repeat(64), { value: 1, slot: 1, color: 'red' }, ['red']));
        return settle(draw.id, 1);
      },
      settled: () => settle(draw.id),
      settled_before: () => settle(draw.id),
    });

    // The game's next draw, undrawn, to cancel.
    await t.app.drawScheduler.tick(clock.now());
    const next = await openDraw(player.client, game.code);
    const sealed = (await sealedSeed(t.db, next.id))!;
    const seed = new Keyring(t.config.appKey).decrypt(sealed.sealed);
    const cancel = async (drawId: number, serverSeed: string) =>
      (await cancelDraw(t.db, { id: drawId, actorId: player.id, reason: 'outcomes', seed: serverSeed })).outcome;
    await answersEach<(typeof CANCEL_DRAW_OUTCOMES)[number]>('cancel_draw', {
      unknown: () => cancel(0, seed),
      bad_seed: () => cancel(next.id, 'e'.repeat(64)),
      done: () => cancel(next.id, seed),
      conflict: () => cancel(next.id, seed),
    });
  });
});
