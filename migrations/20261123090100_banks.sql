-- Banks and the bank cards of users. A card number is stored encrypted with the app key; only
-- its last four digits are kept in clear, for display.
create table banks (
  id bigint generated always as identity primary key,
  name text not null,
  code text not null,
  -- Spelled as the interface spells it.
  currenry char(3) not null check (currenry ~ '^[A-Z]{3}$'),
  -- Payment-card issuers: their card numbers must pass the Luhn check.
  payment_cards boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint banks_code_unique unique (code)
);

create table bank_cards (
  id bigint generated always as identity primary key,
  -- A bank with cards cannot be deleted; a user's cards go with the user.
  bank_id bigint not null references banks (id) on delete restrict,
  user_id bigint not null references users (id) on delete cascade,
  holder_name text not null,
  card_number_encrypted text not null,
  card_last4 char(4) not null,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index bank_cards_user_idx on bank_cards (user_id, id);
create index bank_cards_bank_idx on bank_cards (bank_id, id);
