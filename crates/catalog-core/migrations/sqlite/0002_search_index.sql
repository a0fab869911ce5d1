-- Full-text indexes for search: FTS5 tables with the trigram tokenizer over
-- the searchable text of tracks, albums and artists, kept in step with
-- their tables by triggers. Trigram FTS5 answers `LIKE '%term%'` from the
-- index, so search keeps its substring semantics (terms of one or two
-- characters are answered by scanning the index table).

CREATE VIRTUAL TABLE tracks_fts USING fts5(search_text, content='tracks', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
    INSERT INTO tracks_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
    INSERT INTO tracks_fts(tracks_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;
CREATE TRIGGER tracks_fts_update AFTER UPDATE OF search_text ON tracks BEGIN
    INSERT INTO tracks_fts(tracks_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
    INSERT INTO tracks_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
INSERT INTO tracks_fts(tracks_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE albums_fts USING fts5(search_text, content='albums', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER albums_fts_insert AFTER INSERT ON albums BEGIN
    INSERT INTO albums_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER albums_fts_delete AFTER DELETE ON albums BEGIN
    INSERT INTO albums_fts(albums_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
END;
CREATE TRIGGER albums_fts_update AFTER UPDATE OF search_text ON albums BEGIN
    INSERT INTO albums_fts(albums_fts, rowid, search_text) VALUES ('delete', old.rowid, old.search_text);
    INSERT INTO albums_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
INSERT INTO albums_fts(albums_fts) VALUES ('rebuild');

CREATE VIRTUAL TABLE artists_fts USING fts5(name_key, content='artists', content_rowid='rowid', tokenize='trigram');
CREATE TRIGGER artists_fts_insert AFTER INSERT ON artists BEGIN
    INSERT INTO artists_fts(rowid, name_key) VALUES (new.rowid, new.name_key);
END;
CREATE TRIGGER artists_fts_delete AFTER DELETE ON artists BEGIN
    INSERT INTO artists_fts(artists_fts, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
END;
CREATE TRIGGER artists_fts_update AFTER UPDATE OF name_key ON artists BEGIN
    INSERT INTO artists_fts(artists_fts, rowid, name_key) VALUES ('delete', old.rowid, old.name_key);
    INSERT INTO artists_fts(rowid, name_key) VALUES (new.rowid, new.name_key);
END;
INSERT INTO artists_fts(artists_fts) VALUES ('rebuild');

-- Results are ordered by name.
CREATE INDEX tracks_name ON tracks (name, id);
CREATE INDEX albums_name ON albums (name, id);
CREATE INDEX artists_name ON artists (name, id);
