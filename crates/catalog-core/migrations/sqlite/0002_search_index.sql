-- Full-text indexes for search: FTS5 tables with the trigram tokenizer over
-- the searchable text of tracks, albums and artists, kept in step with
-- their tables by triggers (rowid = the row's rowid). Trigram FTS5 answers
-- `LIKE '%term%'` from the index, so search keeps its substring semantics
-- (terms of one or two characters are answered by scanning the index
-- table). Each index keeps its own copy of the (short) text, so checking a
-- match never reads the wide track rows with their analysis.

CREATE VIRTUAL TABLE tracks_fts USING fts5(search_text, tokenize='trigram');
INSERT INTO tracks_fts(rowid, search_text) SELECT rowid, search_text FROM tracks;
CREATE TRIGGER tracks_fts_insert AFTER INSERT ON tracks BEGIN
    INSERT INTO tracks_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER tracks_fts_delete AFTER DELETE ON tracks BEGIN
    DELETE FROM tracks_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER tracks_fts_update AFTER UPDATE OF search_text ON tracks BEGIN
    UPDATE tracks_fts SET search_text = new.search_text WHERE rowid = old.rowid;
END;

CREATE VIRTUAL TABLE albums_fts USING fts5(search_text, tokenize='trigram');
INSERT INTO albums_fts(rowid, search_text) SELECT rowid, search_text FROM albums;
CREATE TRIGGER albums_fts_insert AFTER INSERT ON albums BEGIN
    INSERT INTO albums_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER albums_fts_delete AFTER DELETE ON albums BEGIN
    DELETE FROM albums_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER albums_fts_update AFTER UPDATE OF search_text ON albums BEGIN
    UPDATE albums_fts SET search_text = new.search_text WHERE rowid = old.rowid;
END;

CREATE VIRTUAL TABLE artists_fts USING fts5(name_key, tokenize='trigram');
INSERT INTO artists_fts(rowid, name_key) SELECT rowid, name_key FROM artists;
CREATE TRIGGER artists_fts_insert AFTER INSERT ON artists BEGIN
    INSERT INTO artists_fts(rowid, name_key) VALUES (new.rowid, new.name_key);
END;
CREATE TRIGGER artists_fts_delete AFTER DELETE ON artists BEGIN
    DELETE FROM artists_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER artists_fts_update AFTER UPDATE OF name_key ON artists BEGIN
    UPDATE artists_fts SET name_key = new.name_key WHERE rowid = old.rowid;
END;

-- Results are ordered by name.
CREATE INDEX tracks_name ON tracks (name, id);
CREATE INDEX albums_name ON albums (name, id);
CREATE INDEX artists_name ON artists (name, id);
