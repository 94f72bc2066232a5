import { getTableColumns } from 'drizzle-orm';
import { Type } from 'typebox';
import { codeSchema, describeCodes } from '../../../platform/http/fields.ts';
import { columnPresenter, timestamps } from '../../../platform/http/record.ts';
import { PROVIDER_BET_STATUS, providerTransactions } from '../seamless-wallet/tables.ts';

export const BetStatusFilter = codeSchema(PROVIDER_BET_STATUS, { 'x-message': 'The selected :attribute is invalid.' });

/** docs/api.md section 5, "Provider bet": one game round. */
export const ProviderBetRecord = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  provider_id: Type.Integer(),
  provider_game_id: Type.Integer(),
  round_id: Type.String({ description: 'The provider’s id of the round.' }),
  bet_amount: Type.Number({ description: 'Staked in the round (refunded stakes included).' }),
  win_amount: Type.Number({ description: 'Won in the round.' }),
  currency: Type.String(),
  status: Type.Integer({ description: `${describeCodes(PROVIDER_BET_STATUS)}.` }),
  settled_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ...timestamps,
});

/** A money call of the round as the provider sent it: what operators settle a dispute with. */
export const ProviderTransactionRecord = Type.Object({
  id: Type.Integer(),
  transaction_id: Type.String({ description: 'The provider’s transaction id.' }),
  kind: Type.String({ description: '`bet`, `win` or `refund`.' }),
  bet_transaction_id: Type.Union([Type.String(), Type.Null()], { description: 'The bet a win or a refund named.' }),
  amount: Type.Union([Type.Number(), Type.Null()], { description: 'Stake, win, or the stake a refund gave back.' }),
  currency: Type.Union([Type.String(), Type.Null()]),
  outcome: Type.String({ description: 'What the wallet answered: `OK` or a refusal code.' }),
  payload: Type.Unknown({
    description: 'The signed request body, its credentials (tokens, secrets, signatures) stored as "[redacted]".',
  }),
  created_at: Type.String({ format: 'date-time' }),
});

export const AdminProviderBetRecord = Type.Object({
  ...ProviderBetRecord.properties,
  transactions: Type.Array(ProviderTransactionRecord, { description: 'The round’s money calls, oldest first.' }),
});

export const presentProviderTransaction = columnPresenter(ProviderTransactionRecord, getTableColumns(providerTransactions));
