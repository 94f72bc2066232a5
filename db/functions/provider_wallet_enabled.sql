create or replace function provider_wallet_enabled(p_provider_id bigint) returns boolean
language sql stable as $$
  select exists (select 1 from providers p where p.id = p_provider_id and p.status = 1)
$$;
