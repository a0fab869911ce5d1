-- Episodes in playlists, as Spotify allows: an item is a track or a podcast
-- episode, exactly one of the two, each removed with what it names (a file
-- gone from the library takes its items with it).
ALTER TABLE playlist_items ALTER COLUMN track_id DROP NOT NULL;
ALTER TABLE playlist_items ADD COLUMN episode_id TEXT REFERENCES episodes(id) ON DELETE CASCADE;
ALTER TABLE playlist_items ADD CONSTRAINT playlist_items_one_item CHECK ((track_id IS NULL) <> (episode_id IS NULL));
