-- An operator disables a listener from the administration page: they can
-- no longer sign in, and their apps are unknown to the token endpoint.
ALTER TABLE users ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE;
