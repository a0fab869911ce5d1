-- Teams and the audit log as a product (issue 25).

-- Layer 1 may also be 'none'.
ALTER TABLE collaborators DROP CONSTRAINT IF EXISTS collaborators_default_role_check;
ALTER TABLE collaborators ADD CONSTRAINT collaborators_default_role_check
    CHECK (default_role IN ('editor', 'viewer', 'none'));

-- A pending invitation: the link's secret is stored as its SHA-256; one per
-- (account, address); it counts against the account's seats until it is
-- accepted, declined, revoked or expired.
CREATE TABLE invitations (
    id              TEXT PRIMARY KEY,
    account_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email           TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('editor', 'viewer', 'none')),
    token_hash      TEXT NOT NULL UNIQUE,
    invited_by      TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL
);
CREATE UNIQUE INDEX invitations_account_email ON invitations (account_user_id, email);

-- Who minted a project's upload token, so removing a collaborator can end
-- the tokens they made.
ALTER TABLE projects ADD COLUMN upload_token_minted_by TEXT;

-- The audit log's settings per account. The webhook secret is sealed with
-- the service's secret key (it must be read back to sign).
CREATE TABLE audit_settings (
    account_user_id  TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    retention_days   BIGINT NOT NULL DEFAULT 730 CHECK (retention_days BETWEEN 30 AND 3650),
    webhook_url      TEXT,
    webhook_secret   TEXT,
    chat_webhook_url TEXT,
    updated_at       BIGINT NOT NULL
);

-- Rows to deliver to the account's webhook, written in the mutation's own
-- transaction and removed by the worker once sent (or given up).
CREATE TABLE audit_outbox (
    event_id        TEXT PRIMARY KEY,
    account_user_id TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    claimed_until   BIGINT NOT NULL DEFAULT 0
);
CREATE INDEX audit_outbox_due ON audit_outbox (claimed_until, created_at);

-- One row per delivery attempt (the dashboard's delivery log).
CREATE TABLE audit_deliveries (
    id              TEXT PRIMARY KEY,
    account_user_id TEXT NOT NULL,
    delivery_id     TEXT NOT NULL,
    action          TEXT NOT NULL,
    status          INTEGER,
    latency_ms      BIGINT NOT NULL,
    error           TEXT,
    attempted_at    BIGINT NOT NULL
);
CREATE INDEX audit_deliveries_account ON audit_deliveries (account_user_id, attempted_at);
CREATE INDEX audit_events_prune ON audit_events (created_at);
