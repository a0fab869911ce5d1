-- Episodes in playlists, as Spotify allows: an item is a track or a podcast
-- episode, exactly one of the two, each removed with what it names (a file
-- gone from the library takes its items with it). SQLite cannot relax a
-- NOT NULL column, so the table is rebuilt (nothing references it).
CREATE TABLE playlist_items_new (
    playlist_id TEXT NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    track_id    TEXT REFERENCES tracks(id) ON DELETE CASCADE,
    episode_id  TEXT REFERENCES episodes(id) ON DELETE CASCADE,
    added_by    TEXT NOT NULL,
    added_at    BIGINT NOT NULL,
    PRIMARY KEY (playlist_id, position),
    CHECK ((track_id IS NULL) <> (episode_id IS NULL))
);
INSERT INTO playlist_items_new (playlist_id, position, track_id, added_by, added_at)
SELECT playlist_id, position, track_id, added_by, added_at FROM playlist_items;
DROP TABLE playlist_items;
ALTER TABLE playlist_items_new RENAME TO playlist_items;
