-- Refresh tokens rotate on every use and belong to a family (every token
-- descended from one authorization code). A rotated token is kept, marked,
-- until its family ends, so presenting it again is recognised as reuse and
-- revokes the family. Families expire when idle and at an absolute age.
ALTER TABLE refresh_tokens ADD COLUMN family_id TEXT;
ALTER TABLE refresh_tokens ADD COLUMN family_created_at BIGINT;
ALTER TABLE refresh_tokens ADD COLUMN last_used_at BIGINT;
ALTER TABLE refresh_tokens ADD COLUMN rotated_at BIGINT;
-- Whether the grant came through PKCE, and whether the client proved its
-- secret when it was issued (then every refresh must prove it again).
ALTER TABLE refresh_tokens ADD COLUMN pkce BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE refresh_tokens ADD COLUMN confidential BOOLEAN NOT NULL DEFAULT TRUE;
-- Tokens from before: each its own family, started when it was issued. The
-- web player only ever logged in with PKCE and no secret.
UPDATE refresh_tokens SET family_id = token_hash, family_created_at = created_at, last_used_at = created_at;
UPDATE refresh_tokens SET pkce = TRUE, confidential = FALSE WHERE client_id = 'catalog-web-player';
CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_last_used ON refresh_tokens(last_used_at);

-- Access tokens issued under a family die with it.
ALTER TABLE access_tokens ADD COLUMN family_id TEXT;
CREATE INDEX access_tokens_family ON access_tokens(family_id);

-- A code is marked used instead of deleted, with the family it started, so
-- a replay can revoke what was issued from it.
ALTER TABLE auth_codes ADD COLUMN used_at BIGINT;
ALTER TABLE auth_codes ADD COLUMN family_id TEXT;
CREATE INDEX auth_codes_expiry ON auth_codes(expires_at);

-- The users the owner of a collaborative playlist lets edit it (and read
-- it while it is not public). Followers of a collaborative playlist could
-- edit it before; they keep that as collaborators.
CREATE TABLE playlist_collaborators (
    playlist_id TEXT NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    added_at    BIGINT NOT NULL,
    PRIMARY KEY (playlist_id, user_id)
);
INSERT INTO playlist_collaborators (playlist_id, user_id, added_at)
    SELECT p.id, s.user_id, s.added_at FROM playlists p
    JOIN saved_items s ON s.item_type = 'playlist' AND s.item_id = p.id
    WHERE p.collaborative AND s.user_id <> p.owner_id;
