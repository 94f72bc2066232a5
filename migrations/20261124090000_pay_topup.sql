-- Money operations as database functions (docs/decisions/0003): the ledger rule and the paid
-- top-up rule, each written once. This migration created topup_status, topup_gift_key,
-- ledger_apply and pay_topup; today's body of each is its file in db/functions/
-- (docs/decisions/0006).

-- Its only caller was the one-statement payment, which pay_topup replaces. (No migration creates
-- it any more; a database migrated before function files still has it until here.)
drop function if exists wallet_abort(text);
