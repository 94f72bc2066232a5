import { getTableColumns } from 'drizzle-orm';
import { Type } from 'typebox';
import { codeSchema, describeCodes } from '../../../platform/http/fields.ts';
import { columnPresenter, timestamps } from '../../../platform/http/record.ts';
import { PROVIDER_WIN_HOLD_STATUS, providerWinHolds } from '../seamless-wallet/tables.ts';

export const HoldStatusFilter = codeSchema(PROVIDER_WIN_HOLD_STATUS, { 'x-message': 'The selected :attribute is invalid.' });

/** A provider's win that the ceiling (settings `games.max_win`) held for review (docs/games.md, "Held wins"). */
export const HeldWinRecord = Type.Object({
  id: Type.Integer(),
  provider_id: Type.Integer(),
  user_id: Type.Integer({ description: 'The player the win is for.' }),
  provider_bet_id: Type.Integer({ description: 'The round (`/api/admin/provider-bets/:provider_bet` shows its calls).' }),
  transaction_id: Type.String({ description: 'The provider’s id of the win: it is credited at most once under it.' }),
  bet_transaction_id: Type.String({ description: 'The bet the win names.' }),
  round_id: Type.String({ description: 'The provider’s id of the round.' }),
  amount: Type.Number({ description: 'The win, held and not credited until released.' }),
  currency: Type.String(),
  round_closed: Type.Boolean({ description: 'Whether the call closed its round (the round is settled when the win is decided).' }),
  max_win: Type.Number({ description: 'The ceiling in force when it was held.' }),
  status: Type.Integer({ description: `${describeCodes(PROVIDER_WIN_HOLD_STATUS)}.` }),
  reason: Type.Union([Type.String(), Type.Null()], { description: 'What the reviewer wrote.' }),
  reviewed_by: Type.Union([Type.Integer(), Type.Null()], { description: 'The operator who released or refused it.' }),
  reviewed_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  ...timestamps,
});

export const presentHeldWin = columnPresenter(HeldWinRecord, getTableColumns(providerWinHolds));
