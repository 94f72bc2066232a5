-- E-mail verification as Fortify does it (src/modules/auth/email-verification.ts): when the
-- signed link from the verification e-mail was followed, null until then. It describes the
-- address the user has now, so changing the e-mail sets it back to null. With
-- EMAIL_VERIFICATION=on, money routes refuse users whose value is null (docs/accounts.md).
-- Existing users start unverified: nobody has proven their address yet.
alter table users add column email_verified_at timestamptz;
