-- A ceiling on what one provider call may credit (issue 34, item 6): a signed win of
-- R$ 10,000,000,000 was credited like any other. The operator sets the largest win one call may
-- credit (settings `games`, field `max_win`, in cents; 0, the default, is no ceiling); a win above
-- it is recorded and held for staff to release or refuse, never credited by the call itself.
-- The rule is in db/functions/provider_wallet_win.sql, the review in
-- provider_wallet_win_review.sql; docs/games.md, "Held wins".

alter table settings drop constraint settings_name_check;
alter table settings add constraint settings_name_check check (name in ('referral', 'topup', 'withdraw', 'games'));
insert into settings (name, version, value) values ('games', 1, '{"max_win": 0}');

-- One row per held win: what was held, under which ceiling, and what staff decided. The win's
-- own record (provider_transactions, outcome WIN_HELD, then OK or WIN_REFUSED) is what the
-- provider's retries are answered from. No foreign keys, as on the wallet's other tables
-- (migrations/20261125100000_provider_wallet.sql): rounds and calls are never deleted.
create table provider_win_holds (
  id bigint generated always as identity primary key,
  provider_id bigint not null,
  -- The held call's record: one hold per win transaction, for good.
  provider_transaction_id bigint not null constraint provider_win_holds_transaction_unique unique,
  transaction_id text not null,
  bet_transaction_id text not null,
  round_id text not null,
  provider_bet_id bigint not null,
  user_id bigint not null,
  amount bigint not null check (amount > 0),
  currency text not null,
  round_closed boolean not null,
  -- The ceiling it was over, and the settings version that set it.
  max_win bigint not null check (max_win > 0),
  settings_id bigint not null,
  -- PROVIDER_WIN_HOLD_STATUS (src/modules/games/seamless-wallet/tables.ts): held, released, refused.
  status smallint not null default 0 check (status in (0, 1, 2)),
  reason text,
  reviewed_by bigint,
  reviewed_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- The review queue (status = held) and the admin list's filters, newest first.
create index provider_win_holds_status_idx on provider_win_holds (status, id);
create index provider_win_holds_user_idx on provider_win_holds (user_id, id);
create index provider_win_holds_provider_idx on provider_win_holds (provider_id, id);
create index provider_win_holds_created_idx on provider_win_holds (created_at);
