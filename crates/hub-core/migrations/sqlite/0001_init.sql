-- The hub's schema. Timestamps are epoch milliseconds (UTC) so both backends
-- compare and index them alike; ids are TEXT UUIDs.

CREATE TABLE users (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    password_hash TEXT,
    plan          TEXT NOT NULL DEFAULT 'free' CHECK (plan IN ('free', 'pro', 'business')),
    created_at    INTEGER NOT NULL
);

CREATE TABLE access_tokens (
    id           TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         TEXT NOT NULL,
    token_hash   TEXT NOT NULL,
    display      TEXT NOT NULL,
    expires_at   INTEGER,
    last_used_at INTEGER,
    created_at   INTEGER NOT NULL
);
CREATE UNIQUE INDEX access_tokens_hash ON access_tokens (token_hash);
CREATE INDEX access_tokens_user ON access_tokens (user_id);

CREATE TABLE projects (
    id                TEXT PRIMARY KEY,
    owner_id          TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    slug              TEXT NOT NULL,
    name              TEXT NOT NULL,
    is_public         BOOLEAN NOT NULL DEFAULT FALSE,
    base_url          TEXT,
    custom_domain     TEXT,
    password_hash     TEXT,
    mcp_token         TEXT,
    upload_token_hash TEXT,
    branding          TEXT NOT NULL DEFAULT '{}',
    created_at        INTEGER NOT NULL,
    updated_at        INTEGER NOT NULL
);
CREATE UNIQUE INDEX projects_slug ON projects (slug);
CREATE UNIQUE INDEX projects_custom_domain ON projects (custom_domain);
CREATE INDEX projects_owner ON projects (owner_id, created_at);

CREATE TABLE versions (
    id              TEXT PRIMARY KEY,
    project_id      TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    label           TEXT NOT NULL,
    spec_format     TEXT NOT NULL,
    spec_sha256     TEXT NOT NULL,
    spec_size       INTEGER NOT NULL,
    title           TEXT NOT NULL DEFAULT '',
    api_version     TEXT NOT NULL DEFAULT '',
    operation_count INTEGER NOT NULL DEFAULT 0,
    is_default      BOOLEAN NOT NULL DEFAULT FALSE,
    is_active       BOOLEAN NOT NULL DEFAULT TRUE,
    base_url        TEXT,
    is_preview      BOOLEAN NOT NULL DEFAULT FALSE,
    pr_number       INTEGER,
    commit_sha      TEXT,
    branch          TEXT,
    expires_at      INTEGER,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);
CREATE UNIQUE INDEX versions_label ON versions (project_id, label);
-- The invariant "at most one default version per project" lives here, so it
-- holds whatever number of nodes write concurrently.
CREATE UNIQUE INDEX versions_one_default ON versions (project_id) WHERE is_default;
CREATE INDEX versions_preview_expiry ON versions (expires_at) WHERE is_preview;

CREATE TABLE collaborators (
    account_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    default_role    TEXT NOT NULL CHECK (default_role IN ('editor', 'viewer')),
    created_at      INTEGER NOT NULL,
    PRIMARY KEY (account_user_id, user_id)
);
CREATE INDEX collaborators_user ON collaborators (user_id);

CREATE TABLE project_roles (
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('editor', 'viewer', 'none')),
    PRIMARY KEY (project_id, user_id)
);

CREATE TABLE audit_events (
    id              TEXT PRIMARY KEY,
    account_user_id TEXT NOT NULL,
    actor_user_id   TEXT NOT NULL,
    action          TEXT NOT NULL,
    target_type     TEXT NOT NULL,
    target_id       TEXT NOT NULL,
    project_id      TEXT,
    metadata        TEXT NOT NULL,
    created_at      INTEGER NOT NULL
);
CREATE INDEX audit_events_account_time ON audit_events (account_user_id, created_at);

CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    size   INTEGER NOT NULL,
    data   BLOB NOT NULL
);

CREATE TABLE job_runs (
    job        TEXT NOT NULL,
    slot       INTEGER NOT NULL,
    claimed_at INTEGER NOT NULL,
    PRIMARY KEY (job, slot)
);
