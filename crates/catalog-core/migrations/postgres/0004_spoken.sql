-- Podcasts and audiobooks. A show and an audiobook are both a `shows` row
-- (`kind` 'show' or 'audiobook'); an episode and a chapter are both an
-- `episodes` row of their show (its kind says which). They are not tracks:
-- they have no album, artists or audio features. Search reads them through
-- pg_trgm GIN indexes, as for tracks.

CREATE TABLE shows (
    id          TEXT PRIMARY KEY,
    kind        TEXT NOT NULL,
    name        TEXT NOT NULL,
    show_key    TEXT NOT NULL UNIQUE,
    publisher   TEXT NOT NULL,
    description TEXT NOT NULL,
    image_id    TEXT REFERENCES images(id),
    search_text TEXT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX shows_kind_name ON shows(kind, name, id);

CREATE TABLE episodes (
    id                      TEXT PRIMARY KEY,
    show_id                 TEXT NOT NULL REFERENCES shows(id) ON DELETE CASCADE,
    name                    TEXT NOT NULL,
    number                  BIGINT NOT NULL,
    duration_ms             BIGINT NOT NULL,
    release_date            TEXT NOT NULL,
    release_date_precision  TEXT NOT NULL,
    description             TEXT NOT NULL,
    path                    TEXT NOT NULL UNIQUE,
    file_size               BIGINT NOT NULL,
    file_mtime              BIGINT NOT NULL,
    mime                    TEXT NOT NULL,
    search_text             TEXT NOT NULL,
    created_at              BIGINT NOT NULL
);
CREATE INDEX episodes_show ON episodes(show_id, number, name);
CREATE INDEX episodes_name ON episodes(name, id);

CREATE INDEX shows_search_trgm ON shows USING gin (search_text gin_trgm_ops);
CREATE INDEX episodes_search_trgm ON episodes USING gin (search_text gin_trgm_ops);

-- Each user's position in the episodes and chapters they played (Spotify's
-- `resume_point`), written from the reports of the device that plays them.
CREATE TABLE resume_points (
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    episode_id      TEXT NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
    position_ms     BIGINT NOT NULL,
    fully_played    BOOLEAN NOT NULL,
    updated_at      BIGINT NOT NULL,
    PRIMARY KEY (user_id, episode_id)
);
