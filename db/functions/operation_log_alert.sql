-- An entry of the operation log that no operator wrote: an alert raised by a call from outside
-- (a provider's win held over the ceiling, provider_wallet_win), for staff to find beside what
-- operators did. user_id 0 (no user has it: ids start at 1) says no operator acted; path and ip
-- are the call's (an empty text when the caller has none), method POST (every call from outside
-- that can raise one is a POST), payload what the alert is about, `alert` naming its kind.
-- Written in the caller's transaction, so the alert commits with what it is about or not at all.
create or replace function operation_log_alert(p_path text, p_ip text, p_payload jsonb) returns void language sql as $$
  insert into operation_logs (user_id, path, method, ip, payload) values (0, coalesce(p_path, ''), 'POST', coalesce(p_ip, ''), p_payload)
$$;
