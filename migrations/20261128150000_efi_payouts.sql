-- Payouts through a PSP (Efí's PIX send, docs/api.md section 13b).

-- The payment method that pays approved withdrawals out (PUT /api/admin/settings/payouts): one
-- row, so every instance reads the same choice in the approval's own transaction. Null is the
-- built-in sandbox, the default. A method chosen here cannot be deleted (409, "in use").
create table payout_settings (
  id smallint primary key default 1 check (id = 1),
  payment_method_id bigint references payment_methods (id) on delete restrict,
  updated_by bigint,
  updated_at timestamptz not null default now()
);
insert into payout_settings (id) values (1);

-- What a withdrawal's payout request came to, besides its status:
-- - payout_method_id: the method whose PSP account pays it (null: the built-in sandbox);
-- - payout_state: `sent` (the gateway took it), `unknown` (no answer known: a timeout, a 5xx, a
--   broken connection; the money stays held), `refused` (the PSP refused it and has no such
--   payout: the withdrawal failed with its refund);
-- - payout_detail: the gateway's words on the last answer (a refusal, a failed payout);
-- - payout_checked_at: when reconciliation last asked the PSP about it.
alter table withdrawals add column payout_method_id bigint references payment_methods (id) on delete restrict;
alter table withdrawals add column payout_state text check (payout_state in ('sent', 'unknown', 'refused'));
alter table withdrawals add column payout_detail text;
alter table withdrawals add column payout_checked_at timestamptz;

-- Reconciliation's queue: approved withdrawals paid through a PSP, oldest approval first.
create index withdrawals_payout_reconcile_idx on withdrawals (reviewed_at) where status = 1 and payout_method_id is not null;
