-- Files a workspace uploaded in the studio (images, audio, video, fonts):
-- the bytes are a content-addressed blob, the row names it for the
-- workspace with the type read from the bytes.
CREATE TABLE media (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    sha256       TEXT NOT NULL,
    kind         TEXT NOT NULL,
    content_type TEXT NOT NULL,
    name         TEXT NOT NULL,
    size         INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX media_workspace ON media (workspace_id, created_at);
