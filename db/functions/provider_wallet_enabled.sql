-- Whether the provider is enabled; p_enabled is the code of an enabled provider (CATALOGUE_STATUS
-- in src/modules/games/tables.ts, passed in by every wallet call).
create or replace function provider_wallet_enabled(p_provider_id bigint, p_enabled smallint) returns boolean
language sql stable as $$
  select exists (select 1 from providers p where p.id = p_provider_id and p.status = p_enabled)
$$;
