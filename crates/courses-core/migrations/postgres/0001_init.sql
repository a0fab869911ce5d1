-- The courses service's schema. Timestamps are epoch milliseconds (UTC) so
-- both backends compare and index them alike; ids are TEXT UUIDs. JSON
-- documents are TEXT on both backends and are only read by the service.

CREATE TABLE workspaces (
    id                TEXT PRIMARY KEY,
    name              TEXT NOT NULL,
    plan              TEXT NOT NULL CHECK (plan IN ('sandbox', 'build', 'scale', 'partner')),
    -- When the last charge failed; NULL while the account is paid up.
    payment_failed_at BIGINT,
    created_at        BIGINT NOT NULL,
    updated_at        BIGINT NOT NULL
);

CREATE TABLE api_keys (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    key_hash     TEXT NOT NULL,
    display      TEXT NOT NULL,
    read_only    BOOLEAN NOT NULL,
    revoked_at   BIGINT,
    last_used_at BIGINT,
    created_at   BIGINT NOT NULL
);
CREATE UNIQUE INDEX api_keys_hash ON api_keys (key_hash);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id, created_at);

-- Sliding-window log of requests per key (at most one window of rows each).
CREATE TABLE rate_hits (
    key_id TEXT NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
    at     BIGINT NOT NULL
);
CREATE INDEX rate_hits_key_time ON rate_hits (key_id, at);

-- Monthly counters: metric is 'course_views' or 'generations', month 'YYYY-MM' (UTC).
CREATE TABLE usage_counters (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    month        TEXT NOT NULL,
    metric       TEXT NOT NULL,
    count        BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, month, metric)
);

-- Themes, certificate templates, translations, collections and webhooks.
CREATE TABLE resources (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    kind         TEXT NOT NULL,
    data         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE INDEX resources_workspace_kind ON resources (workspace_id, kind, created_at, id);

CREATE TABLE courses (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    title          TEXT NOT NULL,
    status         TEXT NOT NULL CHECK (status IN ('draft', 'published')),
    passing_score  BIGINT CHECK (passing_score BETWEEN 0 AND 100),
    theme_id       TEXT,
    certificate_id TEXT,
    source_kind    TEXT NOT NULL,
    document       TEXT NOT NULL,
    published_at   BIGINT,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);
CREATE INDEX courses_workspace ON courses (workspace_id, created_at, id);

CREATE TABLE identities (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    external_id  TEXT NOT NULL,
    email        TEXT,
    name         TEXT,
    data         TEXT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
CREATE UNIQUE INDEX identities_external ON identities (workspace_id, external_id);
CREATE INDEX identities_workspace ON identities (workspace_id, created_at, id);

-- One row per opening of a published course; its random id is the
-- capability the learner player uses to record the completion.
CREATE TABLE course_views (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    identity_id  TEXT REFERENCES identities (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL
);

CREATE TABLE completions (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    identity_id  TEXT NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
    score        DOUBLE PRECISION,
    passed       BOOLEAN NOT NULL,
    answers      TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX completions_workspace ON completions (workspace_id, created_at, id);
CREATE INDEX completions_learner ON completions (course_id, identity_id);

CREATE TABLE issued_certificates (
    id             TEXT PRIMARY KEY,
    workspace_id   TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    course_id      TEXT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    identity_id    TEXT NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
    completion_id  TEXT NOT NULL REFERENCES completions (id) ON DELETE CASCADE,
    template_id    TEXT,
    learner_name   TEXT NOT NULL,
    course_title   TEXT NOT NULL,
    score          DOUBLE PRECISION,
    issued_at      BIGINT NOT NULL
);
-- One certificate per learner and course: a second request returns it.
CREATE UNIQUE INDEX issued_certificates_learner ON issued_certificates (course_id, identity_id);
CREATE INDEX issued_certificates_workspace ON issued_certificates (workspace_id, issued_at, id);

CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    size   BIGINT NOT NULL,
    data   BYTEA NOT NULL
);

CREATE TABLE job_runs (
    job        TEXT NOT NULL,
    slot       BIGINT NOT NULL,
    claimed_at BIGINT NOT NULL,
    PRIMARY KEY (job, slot)
);
