import { Type } from 'typebox';
import { timestamps } from '../../platform/http/record.ts';
import { toUnits } from '../../platform/money.ts';
import { maskCpf } from '../kyc/present.ts';
import { PIX_KEY_TYPES } from './pix-key.ts';
import { presentReview, ReviewFields } from './admin-view.ts';
import type { AdminWithdrawalRow, WithdrawalRow } from './repository.ts';
import { PAYOUT_STATES, WITHDRAWAL_STATUSES } from './tables.ts';

export const AccountType = Type.Enum(PIX_KEY_TYPES, {
  'x-message': 'The selected :attribute is invalid.',
  description: 'The PIX key type of `payee_account`.',
});

export const StatusFilter = WITHDRAWAL_STATUSES.filter;

const Instant = Type.Union([Type.String({ format: 'date-time' }), Type.Null()]);

/** docs/api.md section 5. */
const fields = {
  id: Type.Integer(),
  user_id: Type.Integer(),
  payee_name: Type.String(),
  account_type: AccountType,
  payee_account: Type.String({
    description: 'The PIX key in its canonical form; a CPF key masked as identities are (`123.***.***-09`): a CPF is personal data.',
  }),
  amount: Type.Number({ description: 'Held from the balance when requested.' }),
  fee: Type.Number({ description: '`fee_rate` % of the amount, half-up to the cent; not a statement line.' }),
  net_amount: Type.Number({ description: 'What the payee receives: amount − fee.' }),
  currency: Type.String(),
  status: Type.Integer({ description: WITHDRAWAL_STATUSES.description }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'Why it was rejected or failed.' }),
  reviewed_by: Type.Union([Type.Integer(), Type.Null()]),
  reviewed_at: Instant,
  paid_at: Instant,
  ...timestamps,
};

export const WithdrawalRecord = Type.Object(fields);

/**
 * What operators also see: how to find the payout at the gateway (docs/withdrawals.md,
 * "Reconciling"), and what a reviewer decides by ("What a reviewer sees").
 */
export const AdminWithdrawalRecord = Type.Object({
  ...fields,
  reference: Type.String({ description: 'Our reference of the payout at the gateway.' }),
  payout_gateway: Type.Union([Type.String(), Type.Null()]),
  payout_id: Type.Union([Type.String(), Type.Null()], { description: 'The gateway’s payout id; null until it answered.' }),
  payout_method_id: Type.Union([Type.Integer(), Type.Null()], {
    description: 'The payment method whose PSP account pays it (docs/api.md section 13b); null for the built-in sandbox.',
  }),
  payout_state: Type.Union([Type.String({ enum: [...PAYOUT_STATES] }), Type.Null()], {
    description:
      'What the payout came to, agreeing with `status`: `sent` and `unknown` (no answer known: the money stays held until reconciled) while approved; `paid` once paid (2); `refused` (the PSP refused the request) or `failed` (not made) once failed (4) or rejected after approval (3), refunded; null before it was asked (pending, or rejected while pending).',
  }),
  payout_detail: Type.Union([Type.String(), Type.Null()], {
    description: 'The gateway’s words on its last answer (a refusal, a failure).',
  }),
  ...ReviewFields,
});

/**
 * The key as answers show it. A CPF key is the payee's CPF, personal data that leaves the service
 * only masked, under every REGULATION (docs/regulation.md): the player typed it and the PSP has
 * it; what an operator needs to find the payout is its `reference`.
 */
function shownKey(row: Pick<WithdrawalRow, 'account_type' | 'payee_account'>): string {
  return row.account_type === 'CPF' ? maskCpf(row.payee_account) : row.payee_account;
}

export function presentWithdrawal(row: WithdrawalRow) {
  return {
    id: row.id,
    user_id: row.user_id,
    payee_name: row.payee_name,
    account_type: row.account_type,
    payee_account: shownKey(row),
    amount: toUnits(row.amount),
    fee: toUnits(row.fee),
    net_amount: toUnits(row.amount - row.fee),
    currency: row.currency,
    status: row.status,
    reason: row.reason,
    reviewed_by: row.reviewed_by,
    reviewed_at: row.reviewed_at?.toISOString() ?? null,
    paid_at: row.paid_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

export function presentAdminWithdrawal({ review, ...row }: AdminWithdrawalRow, now = new Date()) {
  return {
    ...presentWithdrawal(row),
    reference: row.public_id,
    payout_gateway: row.payout_gateway,
    payout_id: row.payout_id,
    payout_method_id: row.payout_method_id,
    payout_state: row.payout_state,
    payout_detail: row.payout_detail,
    ...presentReview(review, now),
  };
}
