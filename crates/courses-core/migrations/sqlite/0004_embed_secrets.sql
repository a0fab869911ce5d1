-- Per-workspace secrets (the HMAC key of signed embed links), each sealed
-- with the service's secret key (`enc:v1:...`); created by the first node
-- that needs one (an insert that ignores a conflict, then a read).
CREATE TABLE workspace_secrets (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    purpose      TEXT NOT NULL,
    sealed       TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, purpose)
);

-- Anonymous previews (embed links without a signed learner): one row per
-- course, visitor and UTC day, so a visitor counts one course view a day.
-- `visitor` is an HMAC of the client address and the day, never the address.
CREATE TABLE embed_previews (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    visitor      TEXT NOT NULL,
    day          TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (course_id, visitor, day)
);
CREATE INDEX embed_previews_created ON embed_previews (created_at);
