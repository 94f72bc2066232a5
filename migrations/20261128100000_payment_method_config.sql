-- Payment methods name a gateway and carry its configuration (docs/api.md section 13). `config`
-- holds the fields an operator may read back (base URL, client id, PIX key, expiry…);
-- `config_secrets` the write-only ones (client secret, client certificate and key, webhook
-- token), each sealed on its own with the app key (AES-256-GCM, src/platform/crypto.ts), so which
-- secrets are set can be told without opening any. The built-in sandbox takes neither.
alter table payment_methods add column config jsonb not null default '{}'::jsonb;
alter table payment_methods add column config_secrets jsonb not null default '{}'::jsonb;
