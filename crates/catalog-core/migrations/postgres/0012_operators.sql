-- Operators administer the library (scans and their problems, users and
-- their apps) from the listener app.
ALTER TABLE users ADD COLUMN is_operator BOOLEAN NOT NULL DEFAULT FALSE;
