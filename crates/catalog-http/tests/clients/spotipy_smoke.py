"""Drives a running catalog with spotipy, changed only in its base URLs.

Usage: python spotipy_smoke.py BASE_URL CLIENT_ID CLIENT_SECRET USERNAME PASSWORD [web-player]

Covers the authorization code flow with PKCE, refresh, client credentials,
and a round of catalog, library, follow, playlist, history and player calls;
every response is checked. With `web-player`, the catalog's web player is
open as the same user (in headless Chromium, see web_player.mjs) and the
player calls command it: transfer, play with a context and an offset,
pause, next, previous, seek, repeat, shuffle, volume, the queue, and a
track played to its end that enters the listening history. Exits non-zero
on the first failure.
"""

import base64
import re
import sys
import time
import urllib.parse

import requests
import spotipy
from spotipy.oauth2 import SpotifyClientCredentials, SpotifyPKCE

BASE, CLIENT_ID, CLIENT_SECRET, USERNAME, PASSWORD = sys.argv[1:6]
WEB_PLAYER = len(sys.argv) > 6 and sys.argv[6] == "web-player"
REDIRECT = "http://127.0.0.1:8765/callback"
SCOPES = (
    "user-read-private user-library-read user-library-modify user-follow-read user-follow-modify "
    "playlist-read-private playlist-modify-private playlist-modify-public ugc-image-upload user-top-read "
    "user-read-recently-played user-read-playback-state user-modify-playback-state user-read-currently-playing "
    "user-read-playback-position"
)
calls = 0


def check(condition, what):
    global calls
    calls += 1
    if not condition:
        raise SystemExit(f"FAILED: {what}")


def wait_for(probe, what, seconds=15):
    """Polls `probe` until it returns something truthy."""
    deadline = time.time() + seconds
    while True:
        value = probe()
        if value or time.time() > deadline:
            check(value, what)
            return value
        time.sleep(0.2)


def point_at_catalog(manager):
    manager.OAUTH_AUTHORIZE_URL = f"{BASE}/authorize"
    manager.OAUTH_TOKEN_URL = f"{BASE}/api/token"
    return manager


def login(authorize_url):
    """Submits the login form the way a person would, returns the code."""
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorize_url).query))
    browser = requests.Session()  # keeps the page's CSRF cookie
    page = browser.get(authorize_url, timeout=10)
    check(page.status_code == 200 and "<form" in page.text, "the login page renders")
    check("frame-ancestors 'none'" in page.headers.get("content-security-policy", ""), "the login page cannot be framed")
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text)
    check(csrf, "the login form carries a CSRF token")
    form = dict(params, username=USERNAME, password=PASSWORD, decision="allow", csrf_token=csrf.group(1))
    forged = requests.post(f"{BASE}/authorize", data=form, allow_redirects=False, timeout=10)
    check(forged.status_code == 403, f"a form without the page's cookie is refused ({forged.status_code})")
    answer = browser.post(f"{BASE}/authorize", data=form, allow_redirects=False, timeout=10)
    check(answer.status_code in (302, 303), f"login redirects ({answer.status_code})")
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["location"]).query))
    return query["code"]


# --- authorization code with PKCE -----------------------------------------
auth = point_at_catalog(
    SpotifyPKCE(client_id=CLIENT_ID, redirect_uri=REDIRECT, scope=SCOPES, open_browser=False, cache_handler=spotipy.MemoryCacheHandler())
)
code = login(auth.get_authorize_url())
access = auth.get_access_token(code, check_cache=False)
token_info = auth.get_cached_token()
check(access and token_info["refresh_token"], "PKCE exchange returns tokens")
refreshed = auth.refresh_access_token(token_info["refresh_token"])
check(refreshed["access_token"] != token_info["access_token"], "refresh returns a new access token")
check(refreshed["refresh_token"] != token_info["refresh_token"], "refresh rotates the refresh token")

sp = spotipy.Spotify(auth_manager=auth)
sp.prefix = f"{BASE}/v1/"

me = sp.current_user()
check(me["id"] and me["display_name"] == USERNAME, "current_user")

# --- catalog reads ----------------------------------------------------------
found = sp.search("dawn", type="track", limit=5)
check(found["tracks"]["items"][0]["name"] == "Dawn Oscillator", "search track")
track = found["tracks"]["items"][0]
tid = track["id"]
check(sp.track(tid)["uri"] == f"spotify:track:{tid}", "track")
all_tracks = sp.search("e", type="track", limit=10)["tracks"]["items"]
ids = [t["id"] for t in all_tracks if t["id"] != tid]
check(len(sp.tracks(ids[:3])["tracks"]) == 3, "tracks")
album = sp.album(track["album"]["id"])
check(album["total_tracks"] == 3 and len(album["tracks"]["items"]) == 3, "album")
page = sp.album_tracks(album["id"], limit=1)
check(page["total"] == 3 and page["next"], "album_tracks paging")
page2 = sp.next(page)
check(page2["offset"] == 1, "next page through spotipy")
check(len(sp.albums([album["id"]])["albums"]) == 1, "albums")
artist_id = track["artists"][0]["id"]
check(sp.artist(artist_id)["name"] == "Sine Collective", "artist")
check(sp.artists([artist_id])["artists"][0]["id"] == artist_id, "artists")
check(sp.artist_albums(artist_id)["items"][0]["id"] == album["id"], "artist_albums")
check(len(sp.artist_top_tracks(artist_id)["tracks"]) >= 1, "artist_top_tracks")
check("artists" in sp.artist_related_artists(artist_id), "artist_related_artists")
check(sp.search("artist:harmonics", type="album")["albums"]["items"][0]["name"] == "Overtones", "search field filter")
check(sp.search("year:2020", type="album")["albums"]["total"] == 1, "search year filter")
check(sp.new_releases()["albums"]["total"] == 3, "new_releases")
check(len(sp.categories()["categories"]["items"]) == 3, "categories")
check(sp.recommendation_genre_seeds()["genres"] == ["electronic", "jazz", "rock"], "genre seeds")
check(sp.track(tid, market="from_token")["id"] == tid, "market=from_token")
check(sp.search("scill", type="track")["tracks"]["items"][0]["id"] == tid, "search inside a word (full-text index)")
check(sp.available_markets()["markets"] == ["US"], "available_markets")
features = sp.audio_features([tid])[0]
check(abs(features["tempo"] - 120) < 2 and features["key"] == 9 and features["mode"] == 1, f"audio_features {features}")
analysis = sp.audio_analysis(tid)
check(len(analysis["beats"]) > 10 and analysis["track"]["tempo"] > 0, "audio_analysis")
recs = sp.recommendations(seed_tracks=[tid], limit=3, min_tempo=100)
check(len(recs["tracks"]) >= 1 and all(t["id"] != tid for t in recs["tracks"]), "recommendations")

# --- library and follows ------------------------------------------------------
sp.current_user_saved_tracks_add([tid, ids[1]])
check(sp.current_user_saved_tracks_contains([tid, ids[2]]) == [True, False], "saved tracks contains")
saved = sp.current_user_saved_tracks()
check(saved["total"] == 2, f"saved tracks {saved}")
sp.current_user_saved_tracks_delete([ids[1]])
check(sp.current_user_saved_tracks()["total"] == 1, "saved tracks delete")
sp.current_user_saved_albums_add([album["id"]])
check(sp.current_user_saved_albums_contains([album["id"]]) == [True], "saved albums")
sp.user_follow_artists([artist_id])
check(sp.current_user_following_artists([artist_id]) == [True], "following artists")
check(sp.current_user_followed_artists()["artists"]["items"][0]["id"] == artist_id, "followed artists")
sp.user_unfollow_artists([artist_id])
check(sp.current_user_following_artists([artist_id]) == [False], "unfollow artists")

# --- podcasts and audiobooks ---------------------------------------------------------
found = sp.search("signal", type="show,episode")
show_id = found["shows"]["items"][0]["id"]
check(found["episodes"]["total"] == 2, "search shows and episodes")
show = sp.show(show_id)
check(show["name"] == "Signal Hour" and show["total_episodes"] == 2, "show")
check(sp.shows([show_id])["shows"][0]["publisher"] == "Demo Radio", "shows")
episodes = sp.show_episodes(show_id, limit=1)
check(episodes["total"] == 2 and episodes["next"], "show_episodes paging")
episode_id = episodes["items"][0]["id"]
check(sp.episode(episode_id)["show"]["id"] == show_id, "episode")
check(sp.episodes([episode_id])["episodes"][0]["resume_point"]["fully_played"] is False, "episodes with resume_point")
book_id = sp.search("engine", type="audiobook")["audiobooks"]["items"][0]["id"]
book = sp.get_audiobook(book_id)
check(book["authors"] == [{"name": "Ada Byron"}] and book["total_chapters"] == 2, "get_audiobook")
check(sp.get_audiobooks([book_id])["audiobooks"][0]["id"] == book_id, "get_audiobooks")
check(sp.get_audiobook_chapters(book_id)["items"][1]["chapter_number"] == 2, "get_audiobook_chapters")
sp.current_user_saved_shows_add([show_id])  # the generic /me/library route
check(sp.current_user_saved_shows_contains([show_id]) == [True], "saved shows contains (/me/library/contains)")
check(sp.current_user_saved_shows()["items"][0]["show"]["id"] == show_id, "saved shows")
sp.current_user_saved_episodes_add([episode_id])
check(sp.current_user_saved_episodes_contains([episode_id]) == [True], "saved episodes contains")
check(sp.current_user_saved_episodes()["items"][0]["episode"]["id"] == episode_id, "saved episodes")
sp.current_user_saved_episodes_delete([episode_id])
sp.current_user_saved_shows_delete([show_id])
check(sp.current_user_saved_shows()["total"] == 0, "saved shows delete")

# --- playlists ---------------------------------------------------------------------
pl = sp.current_user_playlist_create("Smoke", public=False, description="made by spotipy")
check(pl["name"] == "Smoke" and pl["public"] is False, "playlist create")
uris = [f"spotify:track:{i}" for i in ids[:4]]
snap = sp.playlist_add_items(pl["id"], uris)["snapshot_id"]
check(snap, "playlist add items")
check([i["track"]["id"] for i in sp.playlist_items(pl["id"])["items"]] == ids[:4], "playlist items")
sp.playlist_reorder_items(pl["id"], range_start=0, insert_before=4)
check(sp.playlist_items(pl["id"])["items"][-1]["track"]["id"] == ids[0], "playlist reorder")
current = sp.playlist(pl["id"])["snapshot_id"]
sp.playlist_remove_all_occurrences_of_items(pl["id"], [uris[1]], snapshot_id=current)
check(sp.playlist(pl["id"])["tracks"]["total"] == 3, "playlist remove against the current snapshot")
try:
    sp.playlist_remove_all_occurrences_of_items(pl["id"], [uris[2]], snapshot_id="bm90LWEtc25hcHNob3Q")
    check(False, "a snapshot the playlist never had is refused")
except spotipy.SpotifyException as e:
    check(e.http_status == 400, f"unknown snapshot_id refused ({e.http_status})")
sp.playlist_change_details(pl["id"], name="Smoke 2")
check(sp.playlist(pl["id"])["name"] == "Smoke 2", "playlist change details")
jpeg = base64.b64encode(bytes([0xFF, 0xD8, 0xFF, 0xE0, 0, 16]) + b"JFIF" + bytes(32)).decode()
sp.playlist_upload_cover_image(pl["id"], jpeg)
check(len(sp.playlist_cover_image(pl["id"])) == 1, "playlist cover image")
check(any(p["id"] == pl["id"] for p in sp.current_user_playlists()["items"]), "current_user_playlists")

# --- Spotify fidelity (issue 31) ------------------------------------------------------
# Playlist search from the full-text index: public playlists only.
night = sp.current_user_playlist_create("Smoke Search Night", public=True, description="late synths")
gone = sp.current_user_playlist_create("Smoke Gone", public=True)
found = sp.search("search night", type="playlist")["playlists"]
check(found["total"] == 1 and found["items"][0]["id"] == night["id"], f"search type=playlist {found}")
check(sp.search("smoke 2", type="playlist")["playlists"]["total"] == 0, "a private playlist is not found")
# Episodes in playlists: `track` holds the episode object.
sp.playlist_add_items(night["id"], [f"spotify:track:{tid}", f"spotify:episode:{episode_id}"])
items = sp.playlist_items(night["id"], additional_types=("track", "episode"))["items"]
check([i["track"]["type"] for i in items] == ["track", "episode"], "an episode in a playlist")
check(items[1]["track"]["id"] == episode_id and items[1]["track"]["episode"] is True, "the episode object and its flag")
check(items[1]["track"]["show"]["id"] == show_id, "the episode's show")
sp.playlist_remove_all_occurrences_of_items(night["id"], [f"spotify:episode:{episode_id}"])
check(sp.playlist(night["id"])["tracks"]["total"] == 1, "an episode removed from a playlist")
# Category playlists hold the category's genre.
electronic = [p["id"] for p in sp.category_playlists("electronic")["playlists"]["items"]]
check(electronic == [night["id"]], f"category playlists of electronic {electronic}")
check(sp.category_playlists("jazz")["playlists"]["total"] == 0, "category playlists of jazz")
# The creator follows the playlist; the owner's unfollow takes it off their list.
# (spotipy 2.26's playlist_is_following fails on its own deprecation warning.)
following = sp._get(f"playlists/{night['id']}/followers/contains", ids=me["id"])
check(following == [True], "the creator follows the playlist")
check(sp.playlist(night["id"])["followers"]["total"] == 0, "followers count the others")
sp.current_user_unfollow_playlist(gone["id"])
mine = [p["id"] for p in sp.current_user_playlists()["items"]]
check(gone["id"] not in mine and night["id"] in mine, "the owner's unfollow removes a playlist from their list")
# Markets: the configured list (US by default), playable only there.
check(track["available_markets"] == ["US"], "available_markets of a track")
check(sp.track(tid, market="US")["is_playable"] is True, "playable in US")
in_de = sp.track(tid, market="DE")
check(in_de["is_playable"] is False and in_de["restrictions"] == {"reason": "market"}, f"not playable in DE {in_de.get('restrictions')}")
# explicit from the parental-advisory tag.
explicit = sp.search('track:"Minor Detour"', type="track")["tracks"]["items"][0]
check(explicit["explicit"] is True and sp.track(tid)["explicit"] is False, "explicit from tags")
# Related artists: the demo's three artists share no genre; sound relates them.
related = [a["name"] for a in sp.artist_related_artists(artist_id)["artists"]]
check(sorted(related) == ["Metronome Trio", "The Harmonics"], f"related artists {related}")
# preview_url: 30 seconds of the track (the whole 16-second demo track), no token needed.
preview = requests.get(sp.track(tid)["preview_url"], timeout=10)
check(preview.status_code == 200 and preview.headers["content-type"] == "audio/wav", f"preview_url plays ({preview.status_code})")
check(preview.content[:4] == b"RIFF" and len(preview.content) > 16 * 44100, "the preview is a WAV of the track")
# A bare JSON array of ids as the body (what Spotify's TypeScript SDK sends).
sp._put("me/tracks", payload=[ids[2]])
check(sp.current_user_saved_tracks_contains([ids[2]]) == [True], "save with a bare array body")
sp._delete("me/tracks", payload=[ids[2]])
check(sp.current_user_saved_tracks_contains([ids[2]]) == [False], "remove with a bare array body")
# /me/audiobooks answers the simplified audiobooks themselves, as Spotify does.
sp._put(f"me/audiobooks?ids={book_id}")
saved_books = sp._get("me/audiobooks")
check(saved_books["total"] == 1 and saved_books["items"][0]["id"] == book_id, "saved audiobooks")
check("added_at" not in saved_books["items"][0] and saved_books["items"][0]["total_chapters"] == 2, "saved audiobook shape")
sp._delete(f"me/audiobooks?ids={book_id}")

# --- history and player ----------------------------------------------------------
check(sp.current_user_top_tracks(time_range="short_term")["total"] == 0, "top tracks (no plays yet)")
check(sp.current_user_recently_played()["items"] == [], "recently played (no plays yet)")
check(sp.current_playback() is None, "current playback (no active device)")
try:
    sp.pause_playback()
    check(False, "pause without an active device fails")
except spotipy.SpotifyException as e:
    check(e.http_status == 404 and e.reason == "NO_ACTIVE_DEVICE", f"player error reason {e.reason}")

if WEB_PLAYER:
    # The listener app, signed in as the same user, is a device named by
    # its browser and system.
    listed = wait_for(lambda: [d for d in sp.devices()["devices"] if d["name"] == "Chrome on Linux"], "the web player is a device")
    device = listed[0]
    check(device["type"] == "Computer" and device["is_active"] is False, f"web player device {device}")
    sp.transfer_playback(device["id"], force_play=False)
    check(sp.current_playback()["device"]["id"] == device["id"], "transfer playback to the web player")
    album_ids = [t["id"] for t in sp.album_tracks(album["id"])["items"]]
    sp.start_playback(context_uri=album["uri"], offset={"position": 1})
    state = sp.current_playback()
    check(state["is_playing"] and state["item"]["id"] == album_ids[1], "play an album from an offset")
    check(state["context"]["uri"] == album["uri"] and state["currently_playing_type"] == "track", "playback context")
    time.sleep(2.5)  # the page's <audio> plays meanwhile (web_player.mjs checks currentTime)
    check(sp.current_playback()["progress_ms"] >= 1500, "progress advances while playing")
    sp.pause_playback()
    paused = sp.current_playback()
    check(paused["is_playing"] is False, "pause")
    time.sleep(1.5)  # the page's <audio> stands still meanwhile
    # Paused progress stands still (up to the device's last report of where its audio stopped).
    check(abs(sp.current_playback()["progress_ms"] - paused["progress_ms"]) <= 500, "paused progress stands still")
    sp.next_track()
    check(sp.currently_playing()["item"]["id"] == album_ids[2], "next track")
    sp.previous_track()
    check(sp.currently_playing()["item"]["id"] == album_ids[1], "previous track")
    sp.seek_track(5000)
    check(4500 <= sp.current_playback()["progress_ms"] <= 6500, "seek")
    sp.repeat("track")
    check(sp.current_playback()["repeat_state"] == "track", "repeat track")
    sp.repeat("off")
    sp.shuffle(True)
    check(sp.current_playback()["shuffle_state"] is True, "shuffle on")
    sp.shuffle(False)
    sp.volume(30)
    check(sp.current_playback()["device"]["volume_percent"] == 30, "volume")
    try:
        sp._put("me/player/volume?volume_percent=130")
        check(False, "a volume over 100 is refused")
    except spotipy.SpotifyException as e:
        check(e.http_status == 400, f"volume over 100 refused ({e.http_status})")
    queued = [i for i in ids if i not in album_ids][0]
    sp.add_to_queue(f"spotify:track:{queued}")
    check(sp.queue()["queue"][0]["id"] == queued, "queue")
    # Play the rest of the track: the page reports its end, playback moves
    # on to the queued track and the play enters the history.
    sp.start_playback()
    sp.seek_track(13500)
    wait_for(lambda: (sp.currently_playing() or {}).get("item", {}).get("id") == queued, "the queued track follows the end", 20)
    recent = sp.current_user_recently_played()
    check(recent["items"][0]["track"]["id"] == album_ids[1], "a track played on the web player is in recently played")
    # Cursors and total as Spotify returns them: the whole history counts.
    check(recent["total"] == len(recent["items"]) >= 1 and recent["next"] is None, f"recently played total {recent['total']}")
    newest = recent["cursors"]["after"]
    check(int(newest) >= int(recent["cursors"]["before"]), "cursors: after is the newest play, before the oldest")
    check(sp.current_user_recently_played(after=int(newest))["items"] == [], "nothing after the newest play")
    check(recent["items"][0]["context"]["uri"] == album["uri"], "its context")
    check(sp.current_user_top_tracks(time_range="short_term")["items"][0]["id"] == album_ids[1], "top tracks from plays")
    # A second play (the queued track to its end) makes two pages of one:
    # `next` (followed as spotipy follows it) holds the older play, `total`
    # counts what each page's cursor selects.
    sp.seek_track(14500)
    wait_for(lambda: (sp.currently_playing() or {}).get("item", {}).get("id") != queued, "the queued track ends", 20)
    page = sp.current_user_recently_played(limit=1)
    check([p["track"]["id"] for p in page["items"]] == [queued] and page["total"] == 2 and page["next"],
          f"recently played page 1 of 2 ({page['total']}, next {page['next']})")
    older = sp.next(page)
    check([p["track"]["id"] for p in older["items"]] == [album_ids[1]] and older["next"] is None and older["total"] == 1,
          f"recently played page 2 through next ({older['total']}, next {older['next']})")
    check(int(older["cursors"]["after"]) < int(page["cursors"]["before"]), "the older page's plays come before the newer page's")
    # An episode plays on the web player too, and its position is kept.
    sp.start_playback(uris=[f"spotify:episode:{episode_id}"])
    state = sp.current_playback(additional_types="episode")
    check(state["currently_playing_type"] == "episode" and state["item"]["show"]["id"] == show_id, "play an episode")
    wait_for(lambda: sp.episode(episode_id)["resume_point"]["resume_position_ms"] > 0, "the episode's resume point moves")
    sp.pause_playback()
    time.sleep(1.0)
else:
    check(sp.devices()["devices"] == [], "devices (none running)")
    print("spotipy: the player calls that need a device were skipped (no web player running)")

# --- client credentials ------------------------------------------------------------
cc = point_at_catalog(SpotifyClientCredentials(client_id=CLIENT_ID, client_secret=CLIENT_SECRET, cache_handler=spotipy.MemoryCacheHandler()))
app_sp = spotipy.Spotify(auth_manager=cc)
app_sp.prefix = f"{BASE}/v1/"
check(app_sp.track(tid)["id"] == tid, "client credentials can read the catalog")
try:
    app_sp.current_user_saved_tracks()
    check(False, "an app token cannot read a user's library")
except spotipy.SpotifyException as e:
    check(e.http_status == 403, f"app token on /me is refused ({e.http_status})")

print(f"spotipy: {calls} checks passed")
