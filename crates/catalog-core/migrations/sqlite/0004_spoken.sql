-- Podcasts and audiobooks. A show and an audiobook are both a `shows` row
-- (`kind` 'show' or 'audiobook'); an episode and a chapter are both an
-- `episodes` row of their show (its kind says which). They are not tracks:
-- they have no album, artists or audio features. Search reads them through
-- FTS5 trigram tables kept in step by triggers, as for tracks.

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

CREATE VIRTUAL TABLE shows_fts USING fts5(search_text, tokenize='trigram');
CREATE TRIGGER shows_fts_insert AFTER INSERT ON shows BEGIN
    INSERT INTO shows_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER shows_fts_delete AFTER DELETE ON shows BEGIN
    DELETE FROM shows_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER shows_fts_update AFTER UPDATE OF search_text ON shows BEGIN
    UPDATE shows_fts SET search_text = new.search_text WHERE rowid = old.rowid;
END;

CREATE VIRTUAL TABLE episodes_fts USING fts5(search_text, tokenize='trigram');
CREATE TRIGGER episodes_fts_insert AFTER INSERT ON episodes BEGIN
    INSERT INTO episodes_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER episodes_fts_delete AFTER DELETE ON episodes BEGIN
    DELETE FROM episodes_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER episodes_fts_update AFTER UPDATE OF search_text ON episodes BEGIN
    UPDATE episodes_fts SET search_text = new.search_text WHERE rowid = old.rowid;
END;

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

-- Search pages: when many items match a search of words alone, a page is
-- read by walking these covering indexes in name order and testing each
-- entry's text, stopping after the page, without the index tables or the
-- item rows (see `Store::search_page`).
CREATE INDEX tracks_name_text ON tracks (name, id, search_text);
CREATE INDEX albums_name_text ON albums (name, id, search_text);
CREATE INDEX artists_name_text ON artists (name, id, name_key);
