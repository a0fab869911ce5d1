-- Signed webhook messages waiting for (or after) delivery: the outbox.
CREATE TABLE webhook_deliveries (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    webhook_id   TEXT NOT NULL REFERENCES resources (id) ON DELETE CASCADE,
    event        TEXT NOT NULL,
    payload      TEXT NOT NULL,
    sent_at_secs BIGINT NOT NULL,
    signature    TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'pending',
    attempts     BIGINT NOT NULL DEFAULT 0,
    created_at   BIGINT NOT NULL
);
CREATE INDEX webhook_deliveries_hook ON webhook_deliveries (webhook_id, created_at, id);
CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (status, created_at);
