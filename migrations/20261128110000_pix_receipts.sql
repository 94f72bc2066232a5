-- Real PIX rails (docs/api.md section 13): what the PSP confirmed we received, checked once per
-- payment, and the two top-up states it can leave behind.
--
-- A top-up can now be returned (4): the money received for it went back to the payer; `reason`
-- says why. Expiry (3) may now also be stored, once the PSP reported the charge unpaid past
-- its `expires_at` (what the PSP said when the charge was made).
alter table topups drop constraint topups_status_check;
alter table topups add constraint topups_status_check check (status in (0, 1, 2, 3, 4));
alter table topups add column expires_at timestamptz;
alter table topups add column reason text;
-- The expiry sweep reads a method's pending top-ups past their charge's expiry.
create index topups_charge_expiry_idx on topups (payment_method_id, expires_at) where status = 0 and expires_at is not null;

-- One row per payment the PSP confirmed for one of our charges: unique on its endToEndId, so a
-- notification, its replays and reconciliation together act on a payment once. `outcome` is
-- what we did: credited (it paid its top-up through the paid path) or returned (it could not be
-- credited: `reason`). A return is asked with `return_id` (ours, so asking again is the same
-- return) and its state is `return_status`: pending (not asked yet), unknown (asked, no answer
-- known), requested (the PSP took it), returned, failed (the PSP could not return it) or refused
-- (the PSP refused to try: an operator decides).
create table pix_payments (
  id bigint generated always as identity primary key,
  end_to_end_id text not null,
  payment_method_id bigint not null references payment_methods (id) on delete restrict,
  txid text not null,
  topup_id bigint not null references topups (id) on delete restrict,
  amount bigint not null check (amount > 0),
  -- When the PSP processed the payment (API Pix's `horario`).
  paid_at timestamptz not null,
  -- Who paid, where the PSP says it (outside the standard's Pix record; kept for regulated mode).
  payer_cpf text,
  payer_cnpj text,
  payer_name text,
  outcome text not null check (outcome in ('credited', 'returned')),
  reason text,
  return_id text,
  return_status text check (return_status in ('pending', 'unknown', 'requested', 'returned', 'failed', 'refused')),
  return_detail text,
  return_rtr_id text,
  returned_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint pix_payments_end_to_end_unique unique (end_to_end_id),
  constraint pix_payments_return_id_unique unique (return_id),
  constraint pix_payments_return_consistent check ((outcome = 'returned') = (return_id is not null and return_status is not null and reason is not null))
);
create index pix_payments_topup_idx on pix_payments (topup_id);
create index pix_payments_method_idx on pix_payments (payment_method_id, id desc);
create index pix_payments_returns_due_idx on pix_payments (id) where return_status in ('pending', 'unknown', 'requested');

-- Reconciliation's place per method: every payment the PSP lists up to `reconciled_until` has
-- been looked at (the next pass starts a little before it, so a late listing is not missed).
create table pix_checkpoints (
  payment_method_id bigint primary key references payment_methods (id) on delete cascade,
  reconciled_until timestamptz not null,
  updated_at timestamptz not null default now()
);
