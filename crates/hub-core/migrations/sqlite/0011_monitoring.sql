-- Uptime monitoring per operation and the checks behind status pages (issue 26).

-- One row per operation of a version (one per GraphQL version: its
-- introspection probe), written unmonitored when the version is pushed.
-- `path_params` and `query` are JSON objects of values the user set; they
-- win over the description's examples.
CREATE TABLE monitors (
    id           TEXT PRIMARY KEY,
    project_id   TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    version_id   TEXT NOT NULL REFERENCES versions (id) ON DELETE CASCADE,
    method       TEXT NOT NULL,
    path         TEXT NOT NULL,
    operation_id TEXT,
    position     INTEGER NOT NULL,
    monitored    BOOLEAN NOT NULL DEFAULT FALSE,
    path_params  TEXT NOT NULL DEFAULT '{}',
    query        TEXT NOT NULL DEFAULT '{}',
    updated_at   INTEGER NOT NULL,
    UNIQUE (version_id, method, path)
);
CREATE INDEX monitors_project ON monitors (project_id);
CREATE INDEX monitors_monitored ON monitors (monitored, version_id);

-- One row per probe. `state` is up, degraded or down; kept 14 days.
CREATE TABLE monitor_checks (
    id           TEXT PRIMARY KEY,
    monitor_id   TEXT NOT NULL REFERENCES monitors (id) ON DELETE CASCADE,
    checked_at   INTEGER NOT NULL,
    state        TEXT NOT NULL CHECK (state IN ('up', 'degraded', 'down')),
    status_code  INTEGER,
    latency_ms   INTEGER NOT NULL,
    snippet      TEXT NOT NULL,
    error        TEXT,
    schema_valid BOOLEAN
);
CREATE INDEX monitor_checks_monitor ON monitor_checks (monitor_id, checked_at);
CREATE INDEX monitor_checks_age ON monitor_checks (checked_at);

-- Credentials for the description's security schemes, per project, sealed
-- with the service's secret key (probes must send them); never returned.
CREATE TABLE monitor_credentials (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    scheme     TEXT NOT NULL,
    sealed     TEXT NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, scheme)
);
