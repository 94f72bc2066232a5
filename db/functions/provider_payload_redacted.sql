-- The value of every key whose name says credential (token, secret, signature or sign, hmac,
-- hash, password, session, auth, credential, key: case-insensitive, anywhere in the name, so
-- `token`, `sessionId`, `X-Signature`, `PlatformKey` all match) replaced by "[redacted]", at any
-- depth. Broad on purpose: a field hidden for nothing costs a dispute a detail, a token kept
-- costs a player's money. A protocol whose credential field matches none of these must be added
-- here (the conformance kit checks that no token is stored).
create or replace function provider_payload_redacted(p_value jsonb) returns jsonb language plpgsql immutable strict as $$
begin
  if jsonb_typeof(p_value) = 'object' then
    return coalesce((select jsonb_object_agg(e.key, case
        when e.key ~* '(token|secret|sign|hmac|hash|passw|session|auth|credential|key)' then '"[redacted]"'::jsonb
        when jsonb_typeof(e.value) in ('object', 'array') then provider_payload_redacted(e.value)
        else e.value end)
      from jsonb_each(p_value) e), '{}'::jsonb);
  elsif jsonb_typeof(p_value) = 'array' then
    return coalesce((select jsonb_agg(provider_payload_redacted(a.value) order by a.n)
      from jsonb_array_elements(p_value) with ordinality a(value, n)), '[]'::jsonb);
  end if;
  return p_value;
end;
$$;
