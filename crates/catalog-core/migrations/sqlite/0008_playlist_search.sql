-- Playlist search: each playlist keeps the lowercased text search matches
-- (its name and description), indexed like the other types' (an FTS5
-- trigram table kept in step by triggers), and a (name, id) index for
-- pages of many matches in name order.
ALTER TABLE playlists ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
UPDATE playlists SET search_text = lower(name || ' ' || COALESCE(description, ''));

CREATE VIRTUAL TABLE playlists_fts USING fts5(search_text, tokenize='trigram');
INSERT INTO playlists_fts(rowid, search_text) SELECT rowid, search_text FROM playlists;
CREATE TRIGGER playlists_fts_insert AFTER INSERT ON playlists BEGIN
    INSERT INTO playlists_fts(rowid, search_text) VALUES (new.rowid, new.search_text);
END;
CREATE TRIGGER playlists_fts_delete AFTER DELETE ON playlists BEGIN
    DELETE FROM playlists_fts WHERE rowid = old.rowid;
END;
CREATE TRIGGER playlists_fts_update AFTER UPDATE OF search_text ON playlists BEGIN
    UPDATE playlists_fts SET search_text = new.search_text WHERE rowid = old.rowid;
END;
CREATE INDEX playlists_name ON playlists (name, id);
