-- Webhook inboxes (issue 27).

-- An inbox belongs to one account (`account_id`, the user who made it) and
-- may name one of its projects. `secret_sealed` and `basic_sealed` are
-- sealed with the service's secret key (a capture must check them, so they
-- are encrypted rather than hashed) and never returned.
CREATE TABLE inboxes (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id     TEXT REFERENCES projects (id) ON DELETE SET NULL,
    name           TEXT NOT NULL,
    state          TEXT NOT NULL CHECK (state IN ('live', 'paused')),
    scheme         TEXT,
    custom         TEXT,
    secret_sealed  TEXT,
    tolerance_secs INTEGER NOT NULL DEFAULT 300,
    basic_username TEXT,
    basic_sealed   TEXT,
    allow_ips      TEXT NOT NULL DEFAULT '[]',
    refused        INTEGER NOT NULL DEFAULT 0,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX inboxes_account ON inboxes (account_id, created_at);

-- What arrived: the raw body and headers as received. Kept for the plan's
-- capture window.
CREATE TABLE inbox_captures (
    id          TEXT PRIMARY KEY,
    inbox_id    TEXT NOT NULL REFERENCES inboxes (id) ON DELETE CASCADE,
    received_at INTEGER NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    query       TEXT NOT NULL,
    headers     TEXT NOT NULL,
    body        BLOB NOT NULL,
    source_ip   TEXT NOT NULL,
    verified    BOOLEAN
);
CREATE INDEX inbox_captures_inbox ON inbox_captures (inbox_id, received_at);
CREATE INDEX inbox_captures_age ON inbox_captures (received_at);

-- One row per stored capture, never deleted with the capture (clearing an
-- inbox does not give its captures back) and pruned only once older than
-- every plan's window. The plan's cap counts these per account.
CREATE TABLE inbox_ledger (
    id          TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    inbox_id    TEXT NOT NULL,
    received_at INTEGER NOT NULL
);
CREATE INDEX inbox_ledger_account ON inbox_ledger (account_id, received_at);
