-- Withdrawals (issue 8): the bet turnover the limits read, and the withdrawals table. The
-- hold, the review transitions and the payout outcome are each one database function in the
-- shape of pay_topup (docs/decisions/0003): db/functions/request_withdrawal.sql and
-- withdrawal_transition.sql; ledger_apply counts the turnover (db/functions/ledger_apply.sql).

-- The bet turnover the `total_bet` limit reads: the sum of a balance's `bet` lines, kept on
-- the balance row that every bet updates anyway (no extra write, no index entry on the bet
-- path), instead of summing a heavy player's whole history on each withdrawal request.
alter table balances add column bet_turnover bigint not null default 0
  constraint balances_bet_turnover_not_negative check (bet_turnover >= 0);
update balances b set bet_turnover = coalesce(
  (select -sum(e.amount) from ledger_entries e where e.balance_id = b.id and e.type = 'bet'), 0);

-- Status: 0 pending review (funds held), 1 approved (being paid), 2 paid, 3 rejected (funds
-- returned), 4 failed (funds returned). The amount left the balance when the row was made.
create table withdrawals (
  id bigint generated always as identity primary key,
  -- What the payout gateway knows the withdrawal by (its notifications name it).
  public_id text not null,
  user_id bigint not null references users (id) on delete restrict,
  payee_name text not null check (length(payee_name) between 1 and 255),
  account_type text not null check (account_type in ('CPF', 'CNPJ', 'EMAIL', 'PHONE', 'EVP')),
  payee_account text not null check (length(payee_account) between 1 and 77),
  amount bigint not null check (amount > 0),
  fee bigint not null check (fee >= 0 and fee < amount),
  currency text not null check (currency ~ '^[A-Z]{3}$'),
  status smallint not null default 0 check (status between 0 and 4),
  reason text,
  reviewed_by bigint references users (id) on delete set null,
  reviewed_at timestamptz,
  paid_at timestamptz,
  -- Which `withdraw` settings version decided the limits and the fee.
  withdraw_settings_id bigint not null,
  -- The client's Idempotency-Key and a digest of what it asked, to answer a retry with the first result.
  request_key text,
  request_digest text,
  payout_gateway text,
  payout_id text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint withdrawals_public_id_unique unique (public_id),
  constraint withdrawals_request_digest check ((request_key is null) = (request_digest is null))
);
-- Every index is one more write per request, the hot path: the user's list; the idempotency
-- keys and the review queue (pending and approved) only where they apply. `from`/`to` read in
-- id order, which follows time, as the ledger's do.
create index withdrawals_user_idx on withdrawals (user_id, id desc);
create unique index withdrawals_request_key_unique on withdrawals (user_id, request_key) where request_key is not null;
create index withdrawals_open_idx on withdrawals (status, id) where status in (0, 1);
alter table withdrawals set (fillfactor = 85);
