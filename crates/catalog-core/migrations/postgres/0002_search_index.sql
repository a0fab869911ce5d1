-- Full-text indexes for search: trigram GIN indexes (pg_trgm) over the
-- searchable text of tracks, albums and artists. They answer
-- `LIKE '%term%'` from the index, so search keeps its substring semantics.
-- pg_trgm ships with PostgreSQL (contrib) and is a trusted extension.

CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE INDEX tracks_search_trgm ON tracks USING gin (search_text gin_trgm_ops);
CREATE INDEX albums_search_trgm ON albums USING gin (search_text gin_trgm_ops);
CREATE INDEX artists_name_trgm ON artists USING gin (name_key gin_trgm_ops);
CREATE INDEX tracks_name ON tracks (name, id);
CREATE INDEX albums_name ON albums (name, id);
CREATE INDEX artists_name ON artists (name, id);
