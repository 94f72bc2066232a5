-- `email_verified_at` says the user proved they read the mail of the address they have now
-- (src/modules/auth/email-verification.ts). A new address has not been proven, whoever changes
-- it (the user's profile, an operator, SQL): it is unverified again until its own link is
-- followed, as Fortify does on a profile update.
create or replace function user_email_changed() returns trigger language plpgsql as $$
begin
  new.email_verified_at := null;
  return new;
end;
$$;
create or replace trigger users_email_changed before update of email on users
  for each row when (new.email is distinct from old.email) execute function user_email_changed();
