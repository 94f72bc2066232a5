-- A received payment's method is its top-up's: one composite foreign key says so, instead of a
-- key to payment_methods and another to topups.
--
-- Why: every foreign-key check locks the referenced row FOR KEY SHARE. All payments of a method
-- referenced the same payment_methods row, so concurrent credits made PostgreSQL create a
-- MultiXact on that row for each payment (measured: one per payment, about 13 members each, at
-- 20 concurrent notifications; docs/benchmarks.md), which grows pg_multixact and brings
-- anti-wraparound vacuums sooner. The composite key locks the payment's own top-up, which the
-- same transaction then updates anyway, and is one check instead of two. The method stays
-- protected: its top-ups refer to it (on delete restrict), and the payment to its top-up.
alter table topups add constraint topups_id_method_unique unique (id, payment_method_id);
alter table pix_payments
  drop constraint pix_payments_payment_method_id_fkey,
  drop constraint pix_payments_topup_id_fkey,
  add constraint pix_payments_topup_method_fkey foreign key (topup_id, payment_method_id)
    references topups (id, payment_method_id) on delete restrict;

-- Only returned payments have a return id: a partial unique index skips the null of every
-- credited payment (one index entry less per credit).
alter table pix_payments drop constraint pix_payments_return_id_unique;
create unique index pix_payments_return_id_unique on pix_payments (return_id) where return_id is not null;
