-- Wallet: balances, the append-only ledger, versioned settings, payment methods and top-ups.
-- Money is BIGINT cents everywhere; rates are basis points (12.5 % = 1250).

create table balances (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete restrict,
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  amount bigint not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint balances_amount_not_negative check (amount >= 0),
  constraint balances_user_currency_unique unique (user_id, currency)
);

-- Every change of a balance is one row here, written in the same transaction as the change.
create table ledger_entries (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id) on delete restrict,
  balance_id bigint not null references balances (id) on delete restrict,
  currency text not null,
  type text not null check (type in (
    'topup', 'topup_gift', 'referral_bonus', 'withdrawal', 'withdrawal_refund',
    'bet', 'win', 'bet_refund', 'adjustment'
  )),
  amount bigint not null,
  balance_after bigint not null check (balance_after >= 0),
  reference_type text,
  reference_id bigint,
  description text,
  -- Every money operation names itself; a replay finds the first outcome instead of moving money.
  idempotency_key text not null check (length(idempotency_key) between 1 and 200),
  created_at timestamptz not null default now(),
  constraint ledger_entries_idempotency_key_unique unique (idempotency_key)
);
create index ledger_entries_user_idx on ledger_entries (user_id, id desc);
create index ledger_entries_balance_idx on ledger_entries (balance_id, id);
create index ledger_entries_created_idx on ledger_entries (created_at);

-- The ledger is history: corrections are new rows, never edits (the append-only triggers:
-- db/functions/ledger_entries_append_only.sql).

-- Settings are versioned: a change inserts a new version and what was computed keeps the
-- version it used (top-ups record theirs).
create table settings (
  id bigint generated always as identity primary key,
  name text not null check (name in ('referral', 'topup', 'withdraw')),
  version integer not null check (version > 0),
  value jsonb not null,
  created_by bigint references users (id) on delete set null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint settings_name_version_unique unique (name, version)
);

insert into settings (name, version, value) values
  ('referral', 1, '{"bonus": 0, "topped_up_bonus": 0, "topped_up_bonus_rate": 0}'),
  ('topup', 1, '{"gift_rate_first_time": 0, "gift_rate": 0, "options": []}'),
  ('withdraw', 1, '{"min_amount_for_player": 0, "min_amount_for_partner": 0, "fee_rate": 0, "total_bet": 0, "referred_users_count": 0, "total_topped_up": 0}');

create table payment_methods (
  id bigint generated always as identity primary key,
  name text not null,
  code text not null check (code ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
  gateway text not null,
  min_amount bigint not null check (min_amount > 0),
  max_amount bigint not null,
  status smallint not null default 1 check (status in (0, 1)),
  sort integer not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint payment_methods_code_unique unique (code),
  constraint payment_methods_range check (max_amount >= min_amount)
);

insert into payment_methods (name, code, gateway, min_amount, max_amount, status, sort)
values ('PIX', 'pix', 'sandbox', 100, 5000000, 1, 0);

create table topups (
  id bigint generated always as identity primary key,
  -- Unguessable id of the payment page; the numeric id stays internal to signed-in views.
  public_id text not null,
  user_id bigint not null references users (id) on delete restrict,
  payment_method_id bigint not null references payment_methods (id) on delete restrict,
  amount bigint not null check (amount > 0),
  gift_amount bigint not null default 0 check (gift_amount >= 0),
  currency text not null,
  -- 0 pending, 1 paid, 2 cancelled; 3 expired is derived from age (see docs/wallet.md).
  status smallint not null default 0 check (status in (0, 1, 2, 3)),
  gateway text not null,
  gateway_payment_id text,
  qr_code text,
  paid_at timestamptz,
  paid_via text check (paid_via in ('webhook', 'admin')),
  paid_by bigint references users (id) on delete set null,
  topup_settings_id bigint references settings (id),
  referral_settings_id bigint references settings (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint topups_public_id_unique unique (public_id),
  constraint topups_gateway_payment_unique unique (gateway, gateway_payment_id),
  constraint topups_paid_consistent check ((status = 1) = (paid_at is not null))
);
create index topups_user_idx on topups (user_id, id desc);
create index topups_user_paid_idx on topups (user_id) where status = 1;
create index topups_created_idx on topups (created_at);
