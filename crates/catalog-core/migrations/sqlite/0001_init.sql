-- The catalog's schema. Instants are epoch milliseconds (BIGINT); ids are
-- 22-character base62 TEXT, as Spotify clients validate them.

CREATE TABLE artists (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL UNIQUE,
    genres      TEXT NOT NULL DEFAULT '[]',
    created_at  BIGINT NOT NULL
);

CREATE TABLE images (
    id          TEXT PRIMARY KEY,
    mime        TEXT NOT NULL,
    width       BIGINT,
    height      BIGINT,
    data        BLOB NOT NULL
);

CREATE TABLE albums (
    id                      TEXT PRIMARY KEY,
    name                    TEXT NOT NULL,
    album_key               TEXT NOT NULL UNIQUE,
    album_type              TEXT NOT NULL,
    release_date            TEXT NOT NULL,
    release_date_precision  TEXT NOT NULL,
    label                   TEXT,
    genres                  TEXT NOT NULL DEFAULT '[]',
    image_id                TEXT REFERENCES images(id),
    search_text             TEXT NOT NULL,
    created_at              BIGINT NOT NULL
);

CREATE TABLE album_artists (
    album_id    TEXT NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
    artist_id   TEXT NOT NULL REFERENCES artists(id) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    PRIMARY KEY (album_id, artist_id)
);
CREATE INDEX album_artists_artist ON album_artists(artist_id);

CREATE TABLE tracks (
    id              TEXT PRIMARY KEY,
    album_id        TEXT NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    disc_number     BIGINT NOT NULL,
    track_number    BIGINT NOT NULL,
    duration_ms     BIGINT NOT NULL,
    explicit        BOOLEAN NOT NULL DEFAULT FALSE,
    isrc            TEXT,
    genre           TEXT,
    year            BIGINT,
    path            TEXT NOT NULL UNIQUE,
    file_size       BIGINT NOT NULL,
    file_mtime      BIGINT NOT NULL,
    mime            TEXT NOT NULL,
    features        TEXT,
    analysis        TEXT,
    search_text     TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX tracks_album ON tracks(album_id, disc_number, track_number);

CREATE TABLE track_artists (
    track_id    TEXT NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
    artist_id   TEXT NOT NULL REFERENCES artists(id) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    PRIMARY KEY (track_id, artist_id)
);
CREATE INDEX track_artists_artist ON track_artists(artist_id);

CREATE TABLE users (
    id              TEXT PRIMARY KEY,
    username        TEXT NOT NULL UNIQUE,
    display_name    TEXT NOT NULL,
    password_hash   TEXT NOT NULL,
    country         TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);

CREATE TABLE apps (
    client_id       TEXT PRIMARY KEY,
    name            TEXT NOT NULL,
    secret_hash     TEXT NOT NULL,
    redirect_uris   TEXT NOT NULL,
    created_at      BIGINT NOT NULL
);

CREATE TABLE auth_codes (
    code_hash       TEXT PRIMARY KEY,
    client_id       TEXT NOT NULL REFERENCES apps(client_id) ON DELETE CASCADE,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_uri    TEXT NOT NULL,
    scope           TEXT NOT NULL,
    code_challenge  TEXT,
    expires_at      BIGINT NOT NULL
);

CREATE TABLE access_tokens (
    token_hash  TEXT PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES apps(client_id) ON DELETE CASCADE,
    user_id     TEXT REFERENCES users(id) ON DELETE CASCADE,
    scope       TEXT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX access_tokens_expiry ON access_tokens(expires_at);

CREATE TABLE refresh_tokens (
    token_hash  TEXT PRIMARY KEY,
    client_id   TEXT NOT NULL REFERENCES apps(client_id) ON DELETE CASCADE,
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    scope       TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);

CREATE TABLE saved_items (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    item_type   TEXT NOT NULL,
    item_id     TEXT NOT NULL,
    added_at    BIGINT NOT NULL,
    PRIMARY KEY (user_id, item_type, item_id)
);
CREATE INDEX saved_items_order ON saved_items(user_id, item_type, added_at);

CREATE TABLE playlists (
    id              TEXT PRIMARY KEY,
    owner_id        TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    description     TEXT,
    public          BOOLEAN NOT NULL,
    collaborative   BOOLEAN NOT NULL,
    version         BIGINT NOT NULL,
    image_id        TEXT REFERENCES images(id),
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX playlists_owner ON playlists(owner_id, created_at);

CREATE TABLE playlist_items (
    playlist_id TEXT NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    track_id    TEXT NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
    added_by    TEXT NOT NULL,
    added_at    BIGINT NOT NULL,
    PRIMARY KEY (playlist_id, position)
);

CREATE TABLE plays (
    user_id     TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    track_id    TEXT NOT NULL REFERENCES tracks(id) ON DELETE CASCADE,
    played_at   BIGINT NOT NULL,
    context_uri TEXT,
    PRIMARY KEY (user_id, played_at)
);
CREATE INDEX plays_track ON plays(track_id);

-- Scheduled work claims one (job, slot) row per period (platform::jobs).
CREATE TABLE job_runs (
    job         TEXT NOT NULL,
    slot        BIGINT NOT NULL,
    claimed_at  BIGINT NOT NULL,
    PRIMARY KEY (job, slot)
);
