-- SCORM packages made by other tools, imported as courses that play their
-- original SCOs. Each file of a package is a content-addressed blob; the
-- package belongs to the course it was imported as (deleted with it).
CREATE TABLE scorm_packages (
    id           TEXT PRIMARY KEY,
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    version      TEXT NOT NULL,
    created_at   BIGINT NOT NULL
);
CREATE INDEX scorm_packages_course ON scorm_packages (course_id);

CREATE TABLE scorm_files (
    package_id TEXT NOT NULL REFERENCES scorm_packages (id) ON DELETE CASCADE,
    path       TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    size       BIGINT NOT NULL,
    PRIMARY KEY (package_id, path)
);

-- The runtime data a SCO committed for a learner (suspend data, location,
-- status, score), read back when the learner opens the course again.
CREATE TABLE scorm_state (
    workspace_id TEXT NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
    course_id    TEXT NOT NULL REFERENCES courses (id) ON DELETE CASCADE,
    identity_id  TEXT NOT NULL REFERENCES identities (id) ON DELETE CASCADE,
    block_id     TEXT NOT NULL,
    data         TEXT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (course_id, identity_id, block_id)
);

-- What the SCOs of a course reported with a completion (per block: the
-- completion and success status, the score, the suspend data).
ALTER TABLE completions ADD COLUMN scorm TEXT;
