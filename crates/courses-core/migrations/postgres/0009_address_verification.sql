-- Studio accounts confirm their address before the first sign-in: a person
-- is verified when a mailed link was used (sign-up), or when the mail of an
-- invitation or a password reset proved the address. People who signed up
-- before this rule are taken as verified.
ALTER TABLE people ADD COLUMN verified_at BIGINT;
UPDATE people SET verified_at = created_at;

-- Verification links: the mail holds a random secret, the row its SHA-256;
-- a link works once and for a day.
CREATE TABLE address_verifications (
    id          TEXT PRIMARY KEY,
    secret_hash TEXT NOT NULL UNIQUE,
    person_id   TEXT NOT NULL REFERENCES people (id) ON DELETE CASCADE,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX address_verifications_person ON address_verifications (person_id);
