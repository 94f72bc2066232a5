import { sql, type SQL } from 'drizzle-orm';
import { Type } from 'typebox';
import { identityStatusSchema, type IdentityStatus } from '../../platform/auth/identity.ts';
import { correlated } from '../../platform/db/columns.ts';
import { smallints } from '../../platform/db/function-calls.ts';
import { toUnits } from '../../platform/money.ts';
import { WITHDRAWAL_STATUS } from './tables.ts';

/** What a reviewer sees of a withdrawal's player, as one JSON value read with the withdrawal. Money as text: cents never pass through a float. */
interface ReviewJson {
  name: string;
  email: string;
  identity_status: IdentityStatus;
  created_at: string;
  balance: string;
  previous_id: number | null;
  since: string | null;
  deposits: string;
  turnover: string;
}

// The withdrawal row as the select writes it (a single-table select drops the table of its
// top-level columns: columns.ts, `correlated`).
const W = {
  id: sql.raw('"withdrawals"."id"'),
  userId: sql.raw('"withdrawals"."user_id"'),
  currency: sql.raw('"withdrawals"."currency"'),
};

// The withdrawals that took money out or still hold it; a rejected or failed one gave it back.
const OUT = [WITHDRAWAL_STATUS.pending, WITHDRAWAL_STATUS.approved, WITHDRAWAL_STATUS.paid];

/**
 * One correlated subquery per withdrawal (docs/withdrawals.md, "What a reviewer sees"); the list
 * reads it for the page's rows only. The window is the player's ledger lines after the previous
 * withdrawal's hold and before this one's (each found by its unique key `withdrawal:<id>`), read
 * through ledger_entries_user_idx (user_id, id): the figures are sums of lines a statement shows.
 */
function reviewOf(): SQL<ReviewJson> {
  return correlated<ReviewJson>(sql`(select json_build_object(
      'name', u.name, 'email', u.email, 'created_at', u.created_at,
      'identity_status', coalesce((select i.status from user_identities i where i.user_id = u.id), 'unverified'),
      'balance', coalesce((select b.amount from balances b where b.user_id = u.id and b.currency = ${W.currency}), 0)::text,
      'previous_id', prev.id, 'since', prev.created_at,
      'deposits', coalesce(win.deposits, 0)::text, 'turnover', greatest(coalesce(win.stakes, 0) - coalesce(win.refunds, 0), 0)::text)
    from users u
    left join lateral (select p.id, p.created_at from withdrawals p
      where p.user_id = ${W.userId} and p.currency = ${W.currency} and p.id < ${W.id}
        and p.status = any (${smallints(OUT)})
      order by p.id desc limit 1) prev on true
    left join lateral (select sum(l.amount) filter (where l.type = 'topup') as deposits,
        -sum(l.amount) filter (where l.type = 'bet') as stakes,
        sum(l.amount) filter (where l.type = 'bet_refund') as refunds
      from ledger_entries l
      where l.user_id = ${W.userId} and l.currency = ${W.currency}
        and l.id > coalesce((select h.id from ledger_entries h where h.idempotency_key = 'withdrawal:' || prev.id), 0)
        and l.id < coalesce((select h.id from ledger_entries h where h.idempotency_key = 'withdrawal:' || ${W.id}),
          9223372036854775807)) win on true
    where u.id = ${W.userId})`);
}

/** The field the admin select adds to a withdrawal's. */
export const reviewField = { review: reviewOf() };

const Money = (description: string) => Type.Number({ description });

/** The fields the admin record adds for a reviewer (docs/api.md section 8). */
export const ReviewFields = {
  player: Type.Object(
    {
      name: Type.String(),
      email: Type.String(),
      identity_status: identityStatusSchema('The player’s identity: unverified (nothing submitted), pending, verified or rejected.'),
      created_at: Type.String({ format: 'date-time', description: 'The sign-up.' }),
      account_age_days: Type.Integer({ description: 'Whole days since the sign-up.' }),
    },
    { description: 'Who asked. No CPF: personal data is never in a list.' },
  ),
  balance: Money('The player’s balance in the withdrawal’s currency now (this withdrawal’s amount already held out of it).'),
  since_last_withdrawal: Type.Object(
    {
      previous_withdrawal_id: Type.Union([Type.Integer(), Type.Null()], {
        description: 'The player’s previous withdrawal that was not rejected or failed; null: none, the window starts at sign-up.',
      }),
      since: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'That withdrawal’s `created_at`; null: since sign-up.',
      }),
      deposits: Money('Paid top-ups credited (`topup` lines, gifts not included) after the previous withdrawal and before this one.'),
      turnover: Money('Stakes (`bet` lines, draw and provider) less stakes refunded (`bet_refund`) in the same window, never below 0.'),
    },
    { description: 'What the player did between the previous withdrawal and this one, from the ledger.' },
  ),
};

const DAY_MS = 86_400_000;

export function presentReview(raw: ReviewJson | string, now: Date) {
  // node-postgres parses json; a driver that does not hands the text.
  const json: ReviewJson = typeof raw === 'string' ? (JSON.parse(raw) as ReviewJson) : raw;
  const createdAt = new Date(json.created_at);
  return {
    player: {
      name: json.name,
      email: json.email,
      identity_status: json.identity_status,
      created_at: createdAt.toISOString(),
      account_age_days: Math.max(0, Math.floor((now.getTime() - createdAt.getTime()) / DAY_MS)),
    },
    balance: toUnits(BigInt(json.balance)),
    since_last_withdrawal: {
      previous_withdrawal_id: json.previous_id === null ? null : Number(json.previous_id),
      since: json.since === null ? null : new Date(json.since).toISOString(),
      deposits: toUnits(BigInt(json.deposits)),
      turnover: toUnits(BigInt(json.turnover)),
    },
  };
}
