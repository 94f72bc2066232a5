-- The operation log: one row per admin request that changed something, written in the same
-- transaction as the change. user_id carries no foreign key on purpose: the history of what an
-- operator did outlives the operator's account.
create table operation_logs (
  id bigint generated always as identity primary key,
  user_id bigint not null,
  path text not null,
  method text not null,
  ip text not null,
  payload jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Filters keep the newest-first order: an index per filter ending in id.
create index operation_logs_user_idx on operation_logs (user_id, id);
create index operation_logs_method_idx on operation_logs (method, id);
create index operation_logs_path_idx on operation_logs (path text_pattern_ops, id);
create index operation_logs_created_at_idx on operation_logs (created_at);
