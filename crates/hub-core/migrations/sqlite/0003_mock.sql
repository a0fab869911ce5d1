-- The mock server: per-project settings, overrides (at most 50 per project,
-- enforced here), sequential example counters and the request log.
CREATE TABLE mock_settings (
    project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    settings   TEXT NOT NULL,
    updated_at INTEGER NOT NULL
);

CREATE TABLE mock_overrides (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    spec       TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX mock_overrides_project ON mock_overrides (project_id, seq);

-- The cap holds whatever writes the table: SQLite has one writer at a time,
-- so the count cannot change between this check and the insert.
CREATE TRIGGER mock_overrides_cap BEFORE INSERT ON mock_overrides
WHEN (SELECT COUNT(*) FROM mock_overrides WHERE project_id = NEW.project_id) >= 50
BEGIN
    SELECT RAISE(ABORT, 'mock_override_limit');
END;

CREATE TABLE mock_sequences (
    project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_label TEXT NOT NULL,
    method        TEXT NOT NULL,
    path          TEXT NOT NULL,
    counter       INTEGER NOT NULL,
    PRIMARY KEY (project_id, version_label, method, path)
);

CREATE TABLE mock_request_log (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    at          INTEGER NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    query       TEXT NOT NULL,
    status      INTEGER NOT NULL,
    synth       TEXT NOT NULL,
    override_id TEXT,
    version     TEXT NOT NULL,
    duration_us INTEGER NOT NULL,
    client_ip   TEXT NOT NULL
);
CREATE INDEX mock_request_log_project ON mock_request_log (project_id, id);
CREATE INDEX mock_request_log_at ON mock_request_log (at);
