-- The dashboard's accounts: verified addresses, display names, server-side
-- sessions, single-use mail links and plan upgrade requests.
ALTER TABLE users ADD COLUMN email_verified_at INTEGER;
ALTER TABLE users ADD COLUMN display_name TEXT;
-- Accounts made before sign-up existed were made by the operator, who
-- vouches for their addresses.
UPDATE users SET email_verified_at = created_at;

-- A browser's session: the cookie holds a random secret, the row its
-- SHA-256. Idle expiry moves with last_seen_at; expires_at is absolute.
CREATE TABLE sessions (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    user_agent   TEXT NOT NULL DEFAULT '',
    ip           TEXT NOT NULL DEFAULT ''
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Links sent by mail (address verification, password reset): stored
-- hashed, single use, expiring.
CREATE TABLE mail_tokens (
    token_hash  TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    used_at     INTEGER
);
CREATE INDEX mail_tokens_user ON mail_tokens (user_id, purpose);

-- With no payment provider, a plan change is a request the operator
-- completes with `svc hub user set-plan`.
CREATE TABLE plan_requests (
    id          TEXT PRIMARY KEY,
    user_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    plan        TEXT NOT NULL CHECK (plan IN ('free', 'pro', 'business')),
    created_at  INTEGER NOT NULL,
    completed_at INTEGER
);
CREATE INDEX plan_requests_user ON plan_requests (user_id);
