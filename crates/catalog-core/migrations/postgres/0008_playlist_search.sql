-- Playlist search: each playlist keeps the lowercased text search matches
-- (its name and description) under a trigram GIN index, like the other
-- types, and a (name, id) index for pages in name order.
ALTER TABLE playlists ADD COLUMN search_text TEXT NOT NULL DEFAULT '';
UPDATE playlists SET search_text = lower(name || ' ' || COALESCE(description, ''));
CREATE INDEX playlists_search_trgm ON playlists USING gin (search_text gin_trgm_ops);
CREATE INDEX playlists_name ON playlists (name, id);
