-- A playlist's creator follows it, as on Spotify: a user's playlist list
-- is the playlists they follow, and the owner's unfollow (Spotify's way of
-- deleting) takes it off their lists. Playlists created before this rule
-- get their owner's follow now.
INSERT INTO saved_items (user_id, item_type, item_id, added_at)
-- (`WHERE true` keeps SQLite from reading ON CONFLICT as a join's ON.)
SELECT owner_id, 'playlist', id, created_at FROM playlists WHERE true
ON CONFLICT DO NOTHING;
