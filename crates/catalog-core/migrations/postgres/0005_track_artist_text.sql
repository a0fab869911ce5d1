-- `artist:` filters on tracks, answered from a trigram index: each track
-- keeps its artists' lowercased names (one per line) in `artist_text`,
-- written by the scan (`Store::upsert_track`), so the filter is a
-- `LIKE '%name%'` on the track row instead of a list of every track of
-- every matching artist. The lines keep a match from spanning two names.

ALTER TABLE tracks ADD COLUMN artist_text TEXT NOT NULL DEFAULT '';
UPDATE tracks SET artist_text = COALESCE((
    SELECT string_agg(r.name_key, E'\n' ORDER BY ta.position)
    FROM track_artists ta JOIN artists r ON r.id = ta.artist_id
    WHERE ta.track_id = tracks.id
), '');
CREATE INDEX tracks_artist_trgm ON tracks USING gin (artist_text gin_trgm_ops);
