-- Category playlists the operator curates: listed first, in their order,
-- before the public playlists holding the category's genre. A playlist
-- that goes away leaves its categories.
CREATE TABLE category_playlists (
    category    TEXT NOT NULL,
    playlist_id TEXT NOT NULL REFERENCES playlists(id) ON DELETE CASCADE,
    position    BIGINT NOT NULL,
    PRIMARY KEY (category, playlist_id)
);
CREATE INDEX category_playlists_order ON category_playlists (category, position);
