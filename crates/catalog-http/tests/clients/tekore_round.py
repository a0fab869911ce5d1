"""Drives a running catalog with tekore, changed only in its base URLs.

Usage: python tekore_round.py BASE_URL CLIENT_ID CLIENT_SECRET USERNAME PASSWORD

tekore calls the older routes (`/playlists/{id}/tracks`, `/me/tracks?ids=`,
`/me/following`) and parses every answer into strict models: a missing key
or a wrong type fails the call. Exits non-zero on the first failure.
"""

import base64
import re
import sys
import urllib.parse
import warnings

import httpx
import tekore as tk
import tekore._auth.expiring.client as tk_auth
import tekore._client.base as tk_base

BASE, CLIENT_ID, CLIENT_SECRET, USERNAME, PASSWORD = sys.argv[1:6]
REDIRECT = "http://127.0.0.1:8765/callback"
calls = 0

# A missing key fails tekore's models outright. A key they do not know is a
# warning: the catalog sends fields newer than tekore 6.0 (`account_id`,
# playlist `items`), so those are collected and listed, not failed on.
unknown = set()


show_warning = warnings.showwarning


def note_unknown(message, category, *args, **kwargs):
    if issubclass(category, tk.model.UnknownModelAttributeWarning):
        unknown.add(str(message).split(" which was")[0].rstrip(","))
    else:
        show_warning(message, category, *args, **kwargs)


warnings.showwarning = note_unknown
warnings.simplefilter("always", tk.model.UnknownModelAttributeWarning)

tk_base.prefix = f"{BASE}/v1/"
tk_auth.OAUTH_AUTHORIZE_URL = f"{BASE}/authorize"
tk_auth.OAUTH_TOKEN_URL = f"{BASE}/api/token"


def check(condition, what):
    global calls
    calls += 1
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def login(authorize_url):
    """Submits the login form the way a person would, returns the code."""
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorize_url).query))
    with httpx.Client(timeout=10) as browser:  # keeps the page's CSRF cookie
        page = browser.get(authorize_url)
        csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
        check(page.status_code == 200 and csrf, "the login page carries a CSRF token")
        form = dict(params, username=USERNAME, password=PASSWORD, decision="allow", csrf_token=csrf.group(1))
        answer = browser.post(f"{BASE}/authorize", data=form, follow_redirects=False)
    check(answer.status_code in (302, 303), f"login redirects ({answer.status_code})")
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["location"]).query))["code"]


credentials = tk.Credentials(CLIENT_ID, CLIENT_SECRET, REDIRECT)
scope = tk.scope.every + tk.scope.streaming  # streaming: the device protocol
code = login(credentials.user_authorisation_url(scope=scope, state="round"))
token = credentials.request_user_token(code)
check(token.refresh_token, "authorization code exchange")
refreshed = credentials.refresh_user_token(token.refresh_token)
check(refreshed.refresh_token and refreshed.refresh_token != token.refresh_token, "refresh rotates the refresh token")
token = refreshed
sp = tk.Spotify(token)

me = sp.current_user()
check(me.display_name == USERNAME and me.product == "premium", "current_user (private user model)")

# --- catalog --------------------------------------------------------------------
(tracks,) = sp.search("dawn", types=("track",), limit=5)
check(tracks.items[0].name == "Dawn Oscillator", "search")
track = sp.track(tracks.items[0].id)
tid = track.id
check(track.uri == f"spotify:track:{tid}" and track.album.name == "First Light", "track (full track model)")
(everything,) = sp.search("e", types=("track",), limit=10)
ids = [t.id for t in everything.items if t.id != tid]
check(len(sp.tracks(ids[:3])) == 3, "tracks")
album = sp.album(track.album.id)
check(album.total_tracks == 3 and album.tracks.total == 3, "album (full album model)")
check(sp.album_tracks(album.id, limit=1).next is not None, "album_tracks paging")
check(len(sp.albums([album.id])) == 1, "albums")
artist = sp.artist(track.artists[0].id)
check(artist.name == "Sine Collective" and artist.followers.total == 0, "artist")
check(sp.artists([artist.id])[0].id == artist.id, "artists")
check(sp.artist_albums(artist.id).items[0].id == album.id, "artist_albums")
check(len(sp.artist_top_tracks(artist.id, market="US")) >= 1, "artist_top_tracks")
check(isinstance(sp.artist_related_artists(artist.id), list), "artist_related_artists")
check(sp.new_releases().total == 3, "new_releases")
check(len(sp.categories().items) == 3, "categories")
check(sp.recommendation_genre_seeds() == ["electronic", "jazz", "rock"], "genre seeds")
check("US" in sp.markets(), "markets")
features = sp.track_audio_features(tid)
check(abs(features.tempo - 120) < 2 and features.key == 9, "track_audio_features")
check(len(sp.tracks_audio_features(ids[:2])) == 2, "tracks_audio_features")
analysis = sp.track_audio_analysis(tid)
check(len(analysis.beats) > 10, "track_audio_analysis")
recs = sp.recommendations(track_ids=[tid], limit=3)
check(len(recs.tracks) >= 1 and all(t.id != tid for t in recs.tracks), "recommendations")

# --- library and follows (old routes) ---------------------------------------------
sp.saved_tracks_add([tid, ids[0]])
check(sp.saved_tracks_contains([tid, ids[1]]) == [True, False], "saved_tracks_contains")
check(sp.saved_tracks().total == 2, "saved_tracks")
sp.saved_tracks_delete([ids[0]])
check(sp.saved_tracks().total == 1, "saved_tracks_delete")
sp.saved_albums_add([album.id])
check(sp.saved_albums().items[0].album.id == album.id, "saved_albums")
sp.artists_follow([artist.id])
check(sp.artists_is_following([artist.id]) == [True], "artists_is_following")
check(sp.followed_artists().items[0].id == artist.id, "followed_artists (cursor paging)")
sp.artists_unfollow([artist.id])

# --- playlists (the deprecated /tracks routes) ------------------------------------
playlist = sp.playlist_create(me.id, "Round", public=False, description="made by tekore")
check(playlist.name == "Round" and playlist.public is False, "playlist_create")
uris = [f"spotify:track:{i}" for i in ids[:3]]
snapshot = sp.playlist_add(playlist.id, uris)
check(snapshot, "playlist_add")
items = sp.playlist_items(playlist.id)
check([i.track.id for i in items.items] == ids[:3], "playlist_items")
sp.playlist_reorder(playlist.id, range_start=0, insert_before=3)
check(sp.playlist_items(playlist.id).items[-1].track.id == ids[0], "playlist_reorder")
sp.playlist_remove(playlist.id, [uris[1]])
check(sp.playlist(playlist.id).tracks.total == 2, "playlist_remove (full playlist model)")
sp.playlist_change_details(playlist.id, name="Round 2")
jpeg = base64.b64encode(bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) + b"JFIF" + bytes(32)).decode()
sp.playlist_cover_image_upload(playlist.id, jpeg)
check(len(sp.playlist_cover_image(playlist.id)) == 1, "playlist_cover_image")
check(any(p.name == "Round 2" for p in sp.followed_playlists().items), "followed_playlists")

# --- history and player -------------------------------------------------------------
check(sp.current_user_top_tracks().total == 0, "current_user_top_tracks")
check(sp.playback_recently_played().items == [], "playback_recently_played")
check(sp.playback_devices() == [], "playback_devices")
check(sp.playback() is None, "playback (nothing playing)")
try:
    sp.playback_pause()
    check(False, "pause without a device fails")
except tk.NotFound as e:
    check(e.response.status_code == 404, "playback_pause answers 404")

# A device (registered by hand on the catalog's device protocol) makes the
# playback objects appear, parsed into tekore's strict player models.
registered = httpx.post(
    f"{BASE}/connect/devices",
    json={"name": "Round device", "type": "Speaker"},
    headers={"authorization": f"Bearer {token.access_token}"},
    timeout=10,
)
check(registered.status_code == 201, f"device registration ({registered.status_code})")
device_id = registered.json()["id"]
check([d.id for d in sp.playback_devices()] == [device_id], "playback_devices (Device model)")
sp.playback_transfer(device_id)
sp.playback_start_context(album.uri, offset=1)
state = sp.playback()
check(state.is_playing and state.item.id == album.tracks.items[1].id, "playback (CurrentlyPlayingContext model)")
check(state.device.id == device_id and state.context.uri == album.uri, "playback device and context")
check(sp.playback_currently_playing().item.id == album.tracks.items[1].id, "playback_currently_playing")
sp.playback_queue_add(f"spotify:track:{tid}")
check(sp.playback_queue().queue[0].id == tid, "playback_queue (Queue model)")
sp.playback_next()
sp.playback_repeat("context")
sp.playback_shuffle(True)
sp.playback_volume(25)
sp.playback_seek(1000)
sp.playback_pause()
state = sp.playback()
check(state.item.id == tid and not state.is_playing, "next plays the queued track; pause")
check(state.repeat_state.value == "context" and state.shuffle_state and state.device.volume_percent == 25, "repeat, shuffle, volume")

# A track the device plays to its end enters the history: cursors and total.
ended = httpx.put(
    f"{BASE}/connect/devices/{device_id}/state",
    json={"track_id": tid, "progress_ms": 1000, "ended": True},
    headers={"authorization": f"Bearer {token.access_token}"},
    timeout=10,
)
check(ended.status_code == 204, f"the device reports the track's end ({ended.status_code})")
recent = sp.playback_recently_played(limit=1)
check([p.track.id for p in recent.items] == [tid], "playback_recently_played (PlayHistoryPaging model)")
check(recent.cursors.after == recent.cursors.before and recent.next is None, "cursors of a one-play history")
check(sp.playback_recently_played(after=int(recent.cursors.after)).items == [], "nothing after the newest play")
# A second play (the track now current, reported ended) makes two pages of
# one: `next` followed by tekore holds the older play; `before=` the first
# page's oldest play answers the same.
second = sp.playback_currently_playing().item.id
ended = httpx.put(
    f"{BASE}/connect/devices/{device_id}/state",
    json={"track_id": second, "progress_ms": 1000, "ended": True},
    headers={"authorization": f"Bearer {token.access_token}"},
    timeout=10,
)
check(ended.status_code == 204, f"the device reports the second track's end ({ended.status_code})")
page = sp.playback_recently_played(limit=1)
check([p.track.id for p in page.items] == [second] and page.next is not None, "recently played: the newest of two plays, and a next page")
older = sp.next(page)
check(older is not None and [p.track.id for p in older.items] == [tid] and older.next is None, "recently played: next holds the older play")
before = sp.playback_recently_played(limit=1, before=int(page.cursors.before))
check([p.track.id for p in before.items] == [tid], "recently played before the first page's oldest play")

# --- podcasts and audiobooks ----------------------------------------------------------
(shows,) = sp.search("signal", types=("show",))
check(shows.items[0].name == "Signal Hour", "search shows")
(episodes,) = sp.search("signal", types=("episode",))
check(episodes.total == 2, "search episodes")
show = sp.show(shows.items[0].id)
check(show.total_episodes == 2 and show.episodes.items[0].name == "Pilot: What Is a Sine Wave", "show (FullShow model)")
check(sp.show_episodes(show.id, limit=1).next is not None, "show_episodes (paging)")
episode = sp.episode(show.episodes.items[1].id)
check(episode.show.id == show.id and episode.resume_point is not None, "episode (FullEpisode model)")
check(sp.shows([show.id])[0].id == show.id and sp.episodes([episode.id])[0].id == episode.id, "shows, episodes")
(books,) = sp.search("engine", types=("audiobook",))
book = sp.audiobook(books.items[0].id)
check(book.authors[0].name == "Ada Byron" and book.chapters.total == 2, "audiobook (FullAudiobook model)")
check(sp.audiobooks([book.id])[0].id == book.id, "audiobooks")
chapter = sp.chapter(book.chapters.items[0].id)
check(chapter.audiobook.id == book.id and chapter.chapter_number == 1, "chapter (FullChapter model)")
check(sp.audiobook_chapters(book.id).total == 2 and sp.chapters([chapter.id])[0].id == chapter.id, "audiobook_chapters, chapters")
sp.saved_shows_add([show.id])
check(sp.saved_shows_contains([show.id]) == [True], "saved_shows_contains")
check(sp.saved_shows().items[0].show.id == show.id, "saved_shows (SavedShow model)")
sp.saved_shows_delete([show.id])
sp.saved_episodes_add([episode.id])
check(sp.saved_episodes().items[0].episode.id == episode.id, "saved_episodes (SavedEpisode model)")
sp.saved_episodes_delete([episode.id])
check(sp.saved_episodes_contains([episode.id]) == [False], "saved_episodes_delete")

# --- Spotify fidelity (issue 31) -----------------------------------------------------
night = sp.playlist_create(me.id, "Round Search Night", public=True)
(found,) = sp.search("round search", types=("playlist",))
check(found.total == 1 and found.items[0].id == night.id, "search type=playlist (SimplePlaylistPaging)")
sp.playlist_add(night.id, [f"spotify:track:{tid}", f"spotify:episode:{episode.id}"])
listed = sp.playlist_items(night.id).items
check(isinstance(listed[1].track, tk.model.FullPlaylistEpisode), "an episode in a playlist (FullPlaylistEpisode)")
check(listed[1].track.id == episode.id and listed[1].track.show.id == show.id, "the playlist's episode")
check([p.id for p in sp.category_playlists("electronic").items] == [night.id], "category_playlists of electronic")
check(sp.category_playlists("jazz").total == 0, "category_playlists of jazz")
check(sp.playlist_is_following(night.id, [me.id]) == [True], "the creator follows the playlist")
sp.playlist_unfollow(night.id)
check(all(p.id != night.id for p in sp.followed_playlists().items), "the owner's unfollow takes it off the list")
check(sp.markets() == ["US"], "markets from configuration")
in_de = sp.track(tid, market="DE")
check(in_de.is_playable is False and in_de.restrictions.reason == "market", "not playable outside the markets")
check(sp.track(tid, market="US").is_playable is True, "playable in US")
(explicit,) = sp.search('track:"Minor Detour"', types=("track",))
check(explicit.items[0].explicit is True and sp.track(tid).explicit is False, "explicit from tags")
preview = httpx.get(sp.track(tid).preview_url, timeout=10)
check(preview.status_code == 200 and preview.content[:4] == b"RIFF", "preview_url plays a WAV cut")
related = sorted(a.name for a in sp.artist_related_artists(artist.id))
check(related == ["Metronome Trio", "The Harmonics"], f"related artists {related}")

# --- client credentials -------------------------------------------------------------
app = tk.Spotify(credentials.request_client_token())
check(app.track(tid).id == tid, "client credentials read the catalog")

print(f"tekore: {calls} checks passed")
for line in sorted(unknown):
    print(f"  (newer than tekore 6.0) {line}")
