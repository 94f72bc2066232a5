-- Regulated mode (docs/api.md section 14, docs/regulation.md): who a player is. One current
-- row per user that has submitted an identity (none: `unverified`), and every submission and
-- decision kept in user_identity_history, append-only (db/functions/user_identity_history_append_only.sql).
--
-- The CPF is kept as its 11 digits, indexed, so a player can be found by it (the national
-- self-exclusion list is one CPF a line). A CPF is held by the user whose identity with it is
-- pending or verified: a rejected submission holds nothing, so the real owner is never locked
-- out by someone who typed their number.
create table user_identities (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id),
  cpf text not null check (cpf ~ '^[0-9]{11}$'),
  full_name text not null,
  birth_date date not null,
  status text not null check (status in ('pending', 'verified', 'rejected')),
  reason text,
  verifier text not null,
  submitted_at timestamptz not null default now(),
  verified_at timestamptz,
  decided_by bigint references users (id),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint user_identities_user_id_unique unique (user_id)
);
create unique index user_identities_cpf_held_idx on user_identities (cpf) where status in ('pending', 'verified');
create index user_identities_cpf_idx on user_identities (cpf);
create index user_identities_status_idx on user_identities (status, id);

create table user_identity_history (
  id bigint generated always as identity primary key,
  user_id bigint not null references users (id),
  event text not null check (event in ('submitted', 'verified', 'rejected')),
  cpf text not null,
  full_name text not null,
  birth_date date not null,
  status text not null,
  reason text,
  verifier text not null,
  -- The admin who decided; null for the player's submission and for an automatic verifier.
  actor_id bigint references users (id),
  created_at timestamptz not null default now()
);
create index user_identity_history_user_idx on user_identity_history (user_id, id);

-- Who may read and decide identities, and read the daily report; admin gets them as it gets
-- every other resource.
insert into permissions (name) values ('identities.view'), ('identities.manage'), ('reports.view')
  on conflict do nothing;
insert into permission_role (role_id, permission_id)
select r.id, p.id from roles r cross join permissions p
where r.name in ('super-admin', 'admin') and p.name in ('identities.view', 'identities.manage', 'reports.view')
on conflict do nothing;
