-- Saved requests with environments (issue 28).

-- An environment belongs to a project. `variables` is a JSON array of
-- [name, value] pairs; `secrets` a JSON array of [name, sealed value]
-- pairs, sealed with the service's secret key (a run must send them, so
-- they are encrypted rather than hashed) and never returned.
CREATE TABLE environments (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    variables  TEXT NOT NULL DEFAULT '[]',
    secrets    TEXT NOT NULL DEFAULT '[]',
    is_default BOOLEAN NOT NULL DEFAULT FALSE,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    UNIQUE (project_id, name)
);
-- At most one default per project.
CREATE UNIQUE INDEX environments_default ON environments (project_id) WHERE is_default;

-- The environment a member chose for a project (one per member and project).
CREATE TABLE environment_choices (
    user_id        TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    project_id     TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    environment_id TEXT NOT NULL REFERENCES environments (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, project_id)
);

-- `headers` and `query` are JSON arrays of [name, value] pairs.
CREATE TABLE saved_requests (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    folder     TEXT,
    name       TEXT NOT NULL,
    method     TEXT NOT NULL,
    url        TEXT NOT NULL,
    headers    TEXT NOT NULL DEFAULT '[]',
    query      TEXT NOT NULL DEFAULT '[]',
    body       TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX saved_requests_project ON saved_requests (project_id, folder, name);

-- A request's latest runs (the store keeps the newest 50): what was sent,
-- with secrets masked, and what came back, without the body.
CREATE TABLE request_runs (
    id             TEXT PRIMARY KEY,
    request_id     TEXT NOT NULL REFERENCES saved_requests (id) ON DELETE CASCADE,
    user_id        TEXT,
    environment    TEXT,
    resolved_url   TEXT NOT NULL,
    status         INTEGER,
    latency_ms     BIGINT NOT NULL,
    size           BIGINT NOT NULL,
    error          TEXT,
    created_at     BIGINT NOT NULL
);
CREATE INDEX request_runs_request ON request_runs (request_id, created_at);
