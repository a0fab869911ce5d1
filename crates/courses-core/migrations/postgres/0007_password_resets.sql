-- Password reset links for studio accounts: the mail holds a random
-- secret, the row its SHA-256; a link works once and for a short time.
CREATE TABLE password_resets (
    id          TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX password_resets_person ON password_resets (person_id);
