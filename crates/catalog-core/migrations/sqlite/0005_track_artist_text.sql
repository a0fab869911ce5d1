-- `artist:` filters on tracks, answered from the full-text index. Each track
-- keeps its artists' lowercased names (one per line) in `artist_text`, a
-- second column of `tracks_fts`, so a search such as `river artist:night`
-- is one FTS5 query (`search_text : "river" AND artist_text : "night"`)
-- instead of a list of every track of every matching artist checked against
-- each candidate row. The scan writes the column with the track's artists
-- (`Store::upsert_track`); the lines keep a phrase from matching across two
-- names.

ALTER TABLE tracks ADD COLUMN artist_text TEXT NOT NULL DEFAULT '';
UPDATE tracks SET artist_text = COALESCE((
    SELECT group_concat(name_key, char(10)) FROM (
        SELECT r.name_key FROM track_artists ta JOIN artists r ON r.id = ta.artist_id
        WHERE ta.track_id = tracks.id ORDER BY ta.position
    )
), '');

DROP TRIGGER tracks_fts_insert;
DROP TRIGGER tracks_fts_delete;
DROP TRIGGER tracks_fts_update;
DROP TABLE tracks_fts;
CREATE VIRTUAL TABLE tracks_fts USING fts5(search_text, artist_text, tokenize='trigram');
INSERT INTO tracks_fts(rowid, search_text, artist_text) SELECT rowid, search_text, artist_text FROM tracks;
CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
    INSERT INTO tracks_fts(rowid, search_text, artist_text) VALUES (new.rowid, new.search_text, new.artist_text);
END;
CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
    DELETE FROM tracks_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER tracks_fts_update AFTER UPDATE OF search_text, artist_text ON tracks BEGIN
    UPDATE tracks_fts SET search_text = new.search_text, artist_text = new.artist_text WHERE rowid = old.rowid;
END;

-- Many matches are paged by walking this covering index in name order
-- (see `Store::search_page`); it carries both text columns.
DROP INDEX tracks_name_text;
CREATE INDEX tracks_name_text ON tracks (name, id, search_text, artist_text);
