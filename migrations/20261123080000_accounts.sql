-- Accounts: users, roles and permissions, server-side sessions, password reset tokens and
-- the counters behind throttling. The permission set and the three roles are seeded here so a
-- fresh database is usable at once.

create table users (
  id bigint generated always as identity primary key,
  name text not null,
  email text not null check (email = lower(email)),
  password text not null,
  ref bigint references users (id) on delete set null,
  status smallint not null default 1 check (status in (0, 1)),
  is_partner boolean not null default false,
  two_factor_secret text,
  two_factor_recovery_codes text,
  two_factor_confirmed_at timestamptz,
  -- Last accepted TOTP time-step: a code is never accepted twice (replay refusal).
  two_factor_last_step bigint,
  -- Mixed into the remember-me cookie's HMAC; replacing it cycles every remember-me cookie.
  remember_nonce text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint users_email_unique unique (email)
);
create index users_ref_idx on users (ref) where ref is not null;

create table roles (
  id bigint generated always as identity primary key,
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint roles_name_unique unique (name)
);

create table permissions (
  id bigint generated always as identity primary key,
  name text not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint permissions_name_unique unique (name)
);

create table role_user (
  user_id bigint not null references users (id) on delete cascade,
  role_id bigint not null references roles (id) on delete cascade,
  primary key (user_id, role_id)
);
create index role_user_role_idx on role_user (role_id);

create table permission_role (
  role_id bigint not null references roles (id) on delete cascade,
  permission_id bigint not null references permissions (id) on delete cascade,
  primary key (role_id, permission_id)
);
create index permission_role_permission_idx on permission_role (permission_id);

-- The cookie holds the session id; the table holds only its SHA-256, so a read of the table
-- does not hand out live sessions.
create table sessions (
  id_hash text primary key,
  user_id bigint references users (id) on delete cascade,
  csrf_token text not null,
  pending_user_id bigint references users (id) on delete cascade,
  pending_remember boolean not null default false,
  pending_at timestamptz,
  password_confirmed_at timestamptz,
  persistent boolean not null default false,
  ip text,
  user_agent text,
  last_activity timestamptz not null default now(),
  created_at timestamptz not null default now()
);
create index sessions_user_idx on sessions (user_id) where user_id is not null;
create index sessions_last_activity_idx on sessions (last_activity);

create table password_reset_tokens (
  email text primary key,
  token_hash text not null,
  created_at timestamptz not null default now()
);

-- Fixed-window counters (login lockout, two-factor attempts); shared by every instance.
create table rate_limits (
  key text primary key,
  hits integer not null,
  reset_at timestamptz not null
);

insert into roles (name) values ('super-admin'), ('admin'), ('player');

insert into permissions (name)
select resource || '.' || action
from unnest(array[
  'users', 'roles', 'permissions', 'balances', 'banks', 'bank-cards', 'games', 'providers',
  'provider-games', 'uploads', 'topups', 'operation-logs', 'settings', 'transactions',
  'withdrawals', 'draws', 'bets', 'settlements', 'refunds', 'provider-bets', 'payment-methods'
]) as resource
cross join unnest(array['view', 'manage']) as action
order by 1;

-- super-admin holds every permission in code; the links make it visible to operators too.
insert into permission_role (role_id, permission_id)
select r.id, p.id from roles r cross join permissions p where r.name = 'super-admin';

-- admin runs the platform but does not grant access: roles and permissions stay with super-admin.
insert into permission_role (role_id, permission_id)
select r.id, p.id from roles r cross join permissions p
where r.name = 'admin' and p.name not in ('roles.manage', 'permissions.manage');
