-- Apps made on the developer page belong to the listener who made them
-- (apps from `svc catalog app create` have no owner); each app names the
-- OAuth flows it may use, comma-separated: authorization_code (with the
-- secret), pkce (a public client) and client_credentials.
ALTER TABLE apps ADD COLUMN owner_id TEXT;
ALTER TABLE apps ADD COLUMN flows TEXT NOT NULL DEFAULT 'authorization_code,pkce,client_credentials';
CREATE INDEX apps_owner ON apps (owner_id);
