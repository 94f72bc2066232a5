import { sql } from 'drizzle-orm';
import type { Db } from '../../platform/db/client.ts';
import { one } from '../../platform/db/client.ts';
import { referralSettings, topupSettings, type StoredSettings } from '../settings/definitions.ts';
import { namedOne } from '../wallet/named.ts';
import { giftAmount, referralTopupReward } from './rewards.ts';

/** The settings versions a process last saw in force; a payment statement verifies them. */
export interface SettingsSeen {
  topup: { id: number; value: StoredSettings };
  referral: { id: number; value: StoredSettings };
}

export async function readSettingsInForce(db: Db): Promise<SettingsSeen> {
  const row = await one<{ ts_id: number | string; ts: StoredSettings | string; rs_id: number | string; rs: StoredSettings | string }>(
    db,
    sql`select ts.id as ts_id, ts.value as ts, rs.id as rs_id, rs.value as rs
      from (select id, value from settings where name = 'topup' order by version desc limit 1) ts
      cross join (select id, value from settings where name = 'referral' order by version desc limit 1) rs`,
  );
  const parse = (value: StoredSettings | string): StoredSettings =>
    typeof value === 'string' ? (JSON.parse(value) as StoredSettings) : value;
  return { topup: { id: Number(row!.ts_id), value: parse(row!.ts) }, referral: { id: Number(row!.rs_id), value: parse(row!.rs) } };
}

/**
 * A gateway's payment in ONE statement and one round trip, for the common case: the top-up is
 * pending with this amount, the settings seen are still in force, and the owner's (and the
 * referrer's) balances exist. The rules run here in TypeScript for both possible cases (first or
 * later paid top-up); the statement picks one by the user's paid counter, which its upsert reads
 * after waiting for any concurrent payment of that user. The lines, keys and references are the
 * ones mark-paid.ts writes.
 *
 * Returns the top-up id when it paid; null when the statement changed nothing (not pending,
 * another amount, unknown payment, newer settings): the caller then takes the general path,
 * which also answers replays. A statement whose parts disagree (a balance to create first, a
 * concurrent change of the counter) fails whole with SQLSTATE 40001 and leaves nothing behind.
 */
export async function paySpeculatively(
  db: Db,
  seen: SettingsSeen,
  target: { gateway: string; paymentId: string; amount: bigint },
): Promise<number | null> {
  const settings = topupSettings(seen.topup.value);
  const giftFirst = giftAmount(settings, target.amount, true);
  const giftLater = giftAmount(settings, target.amount, false);
  const reward = referralTopupReward(referralSettings(seen.referral.value), target.amount);
  const row = await namedOne<{ topup_id: number | string | null }>(
    db,
    sql`with paid as (
        update topups t set status = 1, paid_at = now(), updated_at = now(), paid_via = 'webhook', paid_by = null,
          topup_settings_id = ${seen.topup.id}, referral_settings_id = ${seen.referral.id}
        where t.gateway = ${target.gateway} and t.gateway_payment_id = ${target.paymentId} and t.amount = ${target.amount}::bigint
          and t.status = 0
          and (select id from settings where name = 'topup' order by version desc limit 1) = ${seen.topup.id}
          and (select id from settings where name = 'referral' order by version desc limit 1) = ${seen.referral.id}
        returning t.id, t.user_id, t.currency
      ),
      owner as (select p.id, p.user_id, p.currency, u.ref from paid p join users u on u.id = p.user_id),
      counted as (
        insert into topup_counters (user_id, paid_count, paid_total) select user_id, 1, ${target.amount}::bigint from paid
        on conflict (user_id) do update set paid_count = topup_counters.paid_count + 1,
          paid_total = topup_counters.paid_total + excluded.paid_total, updated_at = now()
        returning paid_count
      ),
      lines as (
        select 0 as k, 0 as g, o.user_id, o.currency, 'topup'::text as type, ${target.amount}::bigint as amount,
          'topup:' || o.id as key, 'Top-up #' || o.id as description
        from owner o
        union all
        select 1, 0, o.user_id, o.currency, 'topup_gift', gift.amount, 'topup:' || o.id || ':gift', 'Gift on top-up #' || o.id
        from owner o cross join (
          select case when (select paid_count from counted) = 1 then ${giftFirst}::bigint else ${giftLater}::bigint end as amount
        ) gift
        where gift.amount > 0
        union all
        select 2, 1, o.ref, o.currency, 'referral_bonus', ${reward}::bigint, 'topup:' || o.id || ':referral',
          'Referral reward: top-up #' || o.id || ' of user #' || o.user_id
        from owner o where o.ref is not null and ${reward}::bigint > 0
      ),
      sums as (select g, user_id, currency, sum(amount)::bigint as delta from lines group by g, user_id, currency),
      moved as (
        update balances b set amount = b.amount + s.delta, updated_at = now()
        from sums s where b.user_id = s.user_id and b.currency = s.currency
        returning b.id, b.amount, s.g, s.delta
      ),
      entry as (
        insert into ledger_entries
          (user_id, balance_id, currency, type, amount, balance_after, reference_type, reference_id, description, idempotency_key)
        select l.user_id, m.id, l.currency, l.type, l.amount,
          m.amount - m.delta + sum(l.amount) over (partition by l.g order by l.k),
          'topup', (select id from owner), l.description, l.key
        from lines l join moved m on m.g = l.g
        order by l.k
        on conflict (idempotency_key) do nothing
        returning id
      )
      select (select id from owner) as topup_id,
        case when (select count(*) from paid) <> (select count(*) from counted)
            or (select count(*) from moved) <> (select count(*) from sums)
            or (select count(*) from entry) <> (select count(*) from lines)
          then wallet_abort('speculative payment incomplete') else 0 end as checked`,
  );
  return row?.topup_id === null || row?.topup_id === undefined ? null : Number(row.topup_id);
}
