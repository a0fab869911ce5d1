-- People who author in the studio: one row per email address (a person may
-- belong to several workspaces), their role in each workspace, their
-- browser sessions (the cookie holds a random secret, the row its SHA-256)
-- and invitations (single use, stored hashed, expiring).
CREATE TABLE people (
    id            TEXT PRIMARY KEY,
    email         TEXT NOT NULL UNIQUE,
    display_name  TEXT NOT NULL,
    password_hash TEXT,
    created_at    BIGINT NOT NULL
);

CREATE TABLE memberships (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    person_id    TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    role         TEXT NOT NULL CHECK (role IN ('owner', 'author', 'viewer')),
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (workspace_id, person_id)
);
CREATE INDEX memberships_person ON memberships (person_id);

CREATE TABLE member_sessions (
    id           TEXT PRIMARY KEY,
    secret_hash  TEXT NOT NULL UNIQUE,
    person_id    TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    last_seen_at BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL
);
CREATE INDEX member_sessions_person ON member_sessions (person_id);

CREATE TABLE invitations (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    email        TEXT NOT NULL,
    role         TEXT NOT NULL CHECK (role IN ('owner', 'author', 'viewer')),
    secret_hash  TEXT NOT NULL UNIQUE,
    invited_by   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    accepted_at  BIGINT
);
CREATE INDEX invitations_workspace ON invitations (workspace_id);
