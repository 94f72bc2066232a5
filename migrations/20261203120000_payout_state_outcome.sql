-- A withdrawal's payout_state agrees with its status: a paid withdrawal read `status: 2` with
-- `payout_state: "sent"`, a failed one `sent` too. withdrawal_transition now writes the outcome
-- with the status (db/functions/withdrawal_transition.sql): `paid` on completion, `failed` when
-- the payout was not made (failed, or rejected after its approval), `refused` kept as the more
-- precise word; here the two new words are allowed and the rows that ended before get theirs.
alter table withdrawals drop constraint withdrawals_payout_state_check;
alter table withdrawals add constraint withdrawals_payout_state_check
  check (payout_state in ('sent', 'unknown', 'refused', 'paid', 'failed'));

update withdrawals set payout_state = 'paid' where status = 2;
-- Approval records the payout gateway, so a rejected withdrawal with one was rejected after its approval.
update withdrawals set payout_state = 'failed'
  where (status = 4 or (status = 3 and payout_gateway is not null)) and payout_state is distinct from 'refused';
