-- The paid top-up path, tightened.

-- Paid top-ups per user, kept in the transaction that marks a top-up paid. The upsert on this
-- row serialises concurrent payments of one user, so exactly one of them is the first (the
-- first-time gift), which a count over top-ups cannot promise under READ COMMITTED.
create table topup_counters (
  user_id bigint primary key references users (id) on delete restrict,
  paid_count bigint not null check (paid_count >= 0),
  paid_total bigint not null check (paid_total >= 0),
  updated_at timestamptz not null default now()
);

insert into topup_counters (user_id, paid_count, paid_total)
select user_id, count(*), sum(amount) from topups where status = 1 group by user_id;

-- Settings versions are history like the ledger: never edited, never deleted
-- (db/functions/settings_append_only.sql). That is what keeps a top-up's settings ids
-- meaningful, so the foreign keys can go: each one made every concurrent payment take a
-- share lock on the same settings row (multixact churn on a hot row).

alter table topups drop constraint topups_topup_settings_id_fkey;
alter table topups drop constraint topups_referral_settings_id_fkey;

-- Who saved a version stays recorded even after that account is gone (a set-null would be an
-- edit of history, which the settings trigger refuses).
alter table settings drop constraint settings_created_by_fkey;

-- A ledger line names its balance, and its user and currency must be that balance's: one
-- composite key says both. It replaces the line → users key, whose check share-locked the
-- user row on every line (many concurrent rewards to one referrer made a hot row of it); the
-- balance row it checks is already locked by the line's own balance update.
alter table balances add constraint balances_id_user_currency_unique unique (id, user_id, currency);
alter table ledger_entries drop constraint ledger_entries_user_id_fkey;
alter table ledger_entries drop constraint ledger_entries_balance_id_fkey;
alter table ledger_entries add constraint ledger_entries_balance_fkey
  foreign key (balance_id, user_id, currency) references balances (id, user_id, currency) on update restrict on delete restrict;

-- Paying a top-up changes only unindexed columns now, so the row is updated in place (HOT).
-- The gift is read from its ledger line (docs/wallet.md) instead of a second update.
drop index topups_user_paid_idx;
alter table topups drop column gift_amount;
