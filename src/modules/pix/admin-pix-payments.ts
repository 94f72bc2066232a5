import { Type } from 'typebox';
import { defineResource } from '../../platform/admin/resource.ts';
import { toUnits } from '../../platform/money.ts';
import { timestamps } from '../../platform/http/record.ts';
import { equals, IdFilter, type RowOf } from '../../platform/pagination/list.ts';
import { PIX_OUTCOMES, pixPayments, RETURN_STATES } from './tables.ts';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const PixPaymentRecord = Type.Object({
  id: Type.Integer(),
  end_to_end_id: Type.String({ description: 'The payment’s id in the PIX network (endToEndId).' }),
  payment_method_id: Type.Integer(),
  txid: Type.String({ description: 'The charge it paid.' }),
  topup_id: Type.Integer(),
  amount: Type.Number({ description: 'What the payer paid, in units.' }),
  paid_at: Type.String({ format: 'date-time' }),
  payer_cpf: Nullable(Type.String({ description: 'The payer’s CPF, when the PSP tells it.' })),
  payer_cnpj: Nullable(Type.String()),
  payer_name: Nullable(Type.String()),
  outcome: Type.String({ enum: [...PIX_OUTCOMES], description: '`credited` (paid its top-up) or `returned` (goes back to the payer).' }),
  reason: Nullable(
    Type.String({ description: 'Why it was returned: `amount_mismatch`, `topup_paid`, `topup_expired`, … (docs/payments.md).' }),
  ),
  return_id: Nullable(Type.String({ description: 'Our id of the return (API Pix’s DevolucaoId), derived from the payment.' })),
  return_status: Nullable(
    Type.String({ enum: [...RETURN_STATES], description: 'pending, unknown, requested, returned, failed or refused (docs/payments.md).' }),
  ),
  return_detail: Nullable(Type.String({ description: 'The PSP’s words when a return failed or was refused.' })),
  rtr_id: Nullable(Type.String({ description: 'The return’s id in the PIX network, once the PSP made it.' })),
  returned_at: Nullable(Type.String({ format: 'date-time' })),
  ...timestamps,
});

const fields = {
  id: pixPayments.id,
  end_to_end_id: pixPayments.endToEndId,
  payment_method_id: pixPayments.paymentMethodId,
  txid: pixPayments.txid,
  topup_id: pixPayments.topupId,
  amount: pixPayments.amount,
  paid_at: pixPayments.paidAt,
  payer_cpf: pixPayments.payerCpf,
  payer_cnpj: pixPayments.payerCnpj,
  payer_name: pixPayments.payerName,
  outcome: pixPayments.outcome,
  reason: pixPayments.reason,
  return_id: pixPayments.returnId,
  return_status: pixPayments.returnStatus,
  return_detail: pixPayments.returnDetail,
  rtr_id: pixPayments.returnRtrId,
  returned_at: pixPayments.returnedAt,
  created_at: pixPayments.createdAt,
  updated_at: pixPayments.updatedAt,
};

/**
 * GET /api/admin/pix-payments: every payment an API Pix PSP confirmed for one of our charges,
 * credited or returned, with where its return stands (docs/payments.md, "Returned payments").
 * Read-only: what moves these rows is the PSP's word, never an operator's edit. Reading needs
 * `topups.view`, as the top-ups they paid.
 */
export const pixPaymentsResource = defineResource({
  path: '/api/admin/pix-payments',
  param: 'pixPayment',
  permission: 'topups',
  tag: 'Admin: top-ups',
  table: pixPayments,
  select: fields,
  record: PixPaymentRecord,
  actions: ['list', 'show'],
  filters: {
    topup_id: equals(pixPayments.topupId, IdFilter),
    payment_method_id: equals(pixPayments.paymentMethodId, IdFilter),
    outcome: equals(pixPayments.outcome, Type.String({ enum: [...PIX_OUTCOMES] })),
    return_status: equals(pixPayments.returnStatus, Type.String({ enum: [...RETURN_STATES] })),
    end_to_end_id: equals(pixPayments.endToEndId, Type.String({ maxLength: 32 })),
  },
  present: (row: RowOf<typeof fields>) => ({
    ...row,
    amount: toUnits(row.amount),
    paid_at: row.paid_at.toISOString(),
    returned_at: row.returned_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  }),
});
