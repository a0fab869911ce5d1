"""spotipy beside the listener app: the same user with a token of its own.

Usage: python listener_watch.py BASE_URL CLIENT_ID USERNAME PASSWORD

Signs in with the authorization code flow and PKCE (through the login form,
as a person would), then answers one JSON line per JSON line read from
stdin: each names a check of what the app just changed (`listener.mjs`
sends them) and the answer says whether spotipy sees it, polling up to
10 s because the app's writes are its own requests:
  {"check": "device", "name": N}              a device named N is listed
  {"check": "playing", "uri": U, "device": D}  U plays on device D
  {"check": "playlist", "id": P, "uris": [..]} playlist P holds exactly these, in order
  {"check": "following", "artist": A}          the user follows artist A
  {"check": "device_gone", "device": D}        device D is no longer listed
  {"check": "pkce_app", "client_id": C}        app C (made on the developer page) completes
                                               the authorization code flow with PKCE as this user
  {"check": "secret", "client_id": C, "secret": S, "works": B}
                                               client credentials with S succeed exactly when B
  {"check": "queue", "uri": U}                 U is in the player's queue
  {"check": "cover", "id": P, "sha256": H}     playlist P's cover image has the SHA-256 H
  {"check": "episode_resume", "uri": U, "at_least_ms": M}
                                               episode U is saved, its resume point at M ms or later
  {"check": "active", "device": D}             D is the one active device
  {"check": "repeat", "state": S}              the playback's repeat_state is S
  {"check": "login", "username": N, "password": P, "works": B}
                                               the login form accepts N and P exactly when B
"""

import hashlib
import json
import re
import sys
import time
import urllib.parse

import requests
import spotipy
from spotipy.oauth2 import SpotifyClientCredentials, SpotifyOauthError, SpotifyPKCE

BASE, CLIENT_ID, USERNAME, PASSWORD = sys.argv[1:5]
REDIRECT = "http://127.0.0.1:8765/callback"
SCOPES = (
    "user-read-private user-follow-read playlist-read-private user-read-playback-state user-library-read"
    " user-read-playback-position"
)


def login(authorize_url):
    browser = requests.Session()
    page = browser.get(authorize_url, timeout=10)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    params = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(authorize_url).query))
    form = dict(params, username=USERNAME, password=PASSWORD, decision="allow", csrf_token=csrf)
    answer = browser.post(f"{BASE}/authorize", data=form, allow_redirects=False, timeout=10)
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(answer.headers["location"]).query))["code"]


auth = SpotifyPKCE(
    client_id=CLIENT_ID, redirect_uri=REDIRECT, scope=SCOPES, open_browser=False, cache_handler=spotipy.MemoryCacheHandler()
)
auth.OAUTH_AUTHORIZE_URL = f"{BASE}/authorize"
auth.OAUTH_TOKEN_URL = f"{BASE}/api/token"
auth.get_access_token(login(auth.get_authorize_url()), check_cache=False)
sp = spotipy.Spotify(auth_manager=auth)
sp.prefix = f"{BASE}/v1/"


def login_works(username, password):
    """Whether the consent page lets `username` in (it redirects with a code)."""
    browser = requests.Session()
    params = {"client_id": CLIENT_ID, "response_type": "code", "redirect_uri": REDIRECT, "scope": "user-read-private"}
    page = browser.get(f"{BASE}/authorize", params=params, timeout=10)
    csrf = re.search(r'name="csrf_token" value="([^"]+)"', page.text).group(1)
    form = dict(params, username=username, password=password, decision="allow", csrf_token=csrf)
    answer = browser.post(f"{BASE}/authorize", data=form, allow_redirects=False, timeout=10)
    return answer.status_code in (302, 303) and "code=" in answer.headers.get("location", "")


def seen(request):
    kind = request["check"]
    if kind == "device":
        names = [d["name"] for d in sp.devices()["devices"]]
        return request["name"] in names, f"devices {names}"
    if kind == "playing":
        state = sp.current_playback()
        if not state:
            return False, "nothing plays"
        ok = state["is_playing"] and state["item"]["uri"] == request["uri"] and state["device"]["id"] == request["device"]
        return ok, f"{state['item']['uri']} on {state['device']['name']} playing={state['is_playing']}"
    if kind == "playlist":
        items = sp.playlist_items(request["id"])["items"]
        uris = [i["track"]["uri"] for i in items]
        mine = [p["id"] for p in sp.current_user_playlists()["items"]]
        return uris == request["uris"] and request["id"] in mine, f"items {uris}, in my playlists: {request['id'] in mine}"
    if kind == "following":
        follows = sp.current_user_following_artists(ids=[request["artist"]])
        listed = [a["id"] for a in sp.current_user_followed_artists()["artists"]["items"]]
        return follows == [True] and request["artist"] in listed, f"contains {follows}, listed {listed}"
    if kind == "device_gone":
        ids = [d["id"] for d in sp.devices()["devices"]]
        return request["device"] not in ids, f"devices {ids}"
    if kind == "pkce_app":
        other = SpotifyPKCE(client_id=request["client_id"], redirect_uri=REDIRECT, scope="user-read-private",
                            open_browser=False, cache_handler=spotipy.MemoryCacheHandler())
        other.OAUTH_AUTHORIZE_URL = f"{BASE}/authorize"
        other.OAUTH_TOKEN_URL = f"{BASE}/api/token"
        other.get_access_token(login(other.get_authorize_url()), check_cache=False)
        client = spotipy.Spotify(auth_manager=other)
        client.prefix = f"{BASE}/v1/"
        who = client.current_user()["id"]
        return who == sp.current_user()["id"], f"the new app's token is for {who}"
    if kind == "secret":
        manager = SpotifyClientCredentials(client_id=request["client_id"], client_secret=request["secret"],
                                           cache_handler=spotipy.MemoryCacheHandler())
        manager.OAUTH_TOKEN_URL = f"{BASE}/api/token"
        try:
            manager.get_access_token(as_dict=False, check_cache=False)
            works = True
        except SpotifyOauthError:
            works = False
        return works == request["works"], f"client credentials with that secret {'work' if works else 'are refused'}"
    if kind == "active":
        devices = sp.devices()["devices"]
        active = [d["id"] for d in devices if d["is_active"]]
        return active == [request["device"]], f"active devices {active}"
    if kind == "repeat":
        state = sp.current_playback()
        return bool(state) and state["repeat_state"] == request["state"], f"repeat {state and state['repeat_state']}"
    if kind == "login":
        works = login_works(request["username"], request["password"])
        return works == request["works"], f"the login {'works' if works else 'is refused'}"
    if kind == "queue":
        uris = [item["uri"] for item in sp.queue()["queue"]]
        return request["uri"] in uris, f"queue {uris}"
    if kind == "cover":
        images = sp.playlist_cover_image(request["id"])
        if not images:
            return False, "no cover"
        digest = hashlib.sha256(requests.get(images[0]["url"], timeout=10).content).hexdigest()
        return digest == request["sha256"], f"the cover's SHA-256 is {digest}"
    if kind == "episode_resume":
        saved = {item["episode"]["uri"]: item["episode"] for item in sp.current_user_saved_episodes(limit=50)["items"]}
        episode = saved.get(request["uri"])
        if not episode:
            return False, f"saved episodes {list(saved)}"
        point = episode["resume_point"]
        ok = not point["fully_played"] and point["resume_position_ms"] >= request["at_least_ms"]
        return ok, f"resume point {point}"
    return False, f"unknown check {kind}"


print(json.dumps({"ready": sp.current_user()["id"]}), flush=True)
for line in sys.stdin:
    request = json.loads(line)
    deadline = time.time() + 10
    while True:
        ok, detail = seen(request)
        if ok or time.time() > deadline:
            break
        time.sleep(0.25)
    print(json.dumps({"ok": ok, "detail": detail}), flush=True)
