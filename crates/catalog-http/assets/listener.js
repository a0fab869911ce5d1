// The catalog's listener app. It renders on the client (no framework, no
// build step): hash routes swap the content of <main> while the player
// deck and its <audio> stay, so playback never stops between pages. It
// signs in as the catalog's own public OAuth client (authorization code
// with PKCE) and then uses only what any client may: the Spotify-shaped Web
// API under /v1 and the device protocol under /connect. It is a device
// itself: it registers, long-polls the playback meant for it and plays the
// signed stream links through <audio>, reporting progress back.
'use strict';

const root = document.getElementById('app');
const clientId = root.dataset.clientId;
const redirectUri = root.dataset.redirectUri;
const scopes = root.dataset.scopes;
const store = window.sessionStorage;
const audio = document.getElementById('audio');
const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// --- DOM building: text is always set as text, never parsed as HTML ------
function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// Children as `h` takes them (nested lists, null for nothing) for replaceChildren.
function nodes(...children) {
  return children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false)
    .map((c) => (c instanceof Node ? c : document.createTextNode(String(c))));
}

// The deck's icons, drawn inline (no icon font, nothing fetched).
const ICONS = {
  play: 'M8 5v14l11-7z',
  pause: 'M6 5h4v14H6zM14 5h4v14h-4z',
  previous: 'M6 6h2v12H6zM9.5 12l8.5 6V6z',
  next: 'M16 6h2v12h-2zM6 18l8.5-6L6 6z',
  shuffle: 'M10.59 9.17 5.41 4 4 5.41l5.17 5.17zM14.5 4l2.04 2.04L4 18.59 5.41 20 17.96 7.46 20 9.5V4zm.33 9.41-1.41 1.41 3.13 3.13L14.5 20H20v-5.5l-2.04 2.04z',
  repeat: 'M7 7h10v3l4-4-4-4v3H5v6h2zm10 10H7v-3l-4 4 4 4v-3h12v-6h-2z',
  volume: 'M3 9v6h4l5 5V4L7 9zm13.5 3A4.5 4.5 0 0 0 14 8v8a4.47 4.47 0 0 0 2.5-4z',
  queue: 'M3 6h18v2H3zm0 5h18v2H3zm0 5h12v2H3z',
  devices: 'M4 6h18V4H4a2 2 0 0 0-2 2v11H0v3h14v-3H4zm19 2h-6a1 1 0 0 0-1 1v10a1 1 0 0 0 1 1h6a1 1 0 0 0 1-1V9a1 1 0 0 0-1-1zm-1 9h-4v-7h4z',
  up: 'M7 14l5-5 5 5z',
  down: 'M7 10l5 5 5-5z',
  remove: 'M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z',
};
function icon(name) {
  const ns = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', '0 0 24 24');
  svg.setAttribute('aria-hidden', 'true');
  svg.setAttribute('focusable', 'false');
  const path = document.createElementNS(ns, 'path');
  path.setAttribute('d', ICONS[name]);
  svg.append(path);
  return svg;
}

function announce(text) {
  const el = $('announce');
  el.textContent = '';
  setTimeout(() => { el.textContent = text; }, 30);
}

function clock(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
}

// --- OAuth with PKCE -------------------------------------------------------
function base64url(bytes) {
  let s = '';
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(n) {
  const bytes = new Uint8Array(n);
  crypto.getRandomValues(bytes);
  return base64url(bytes);
}

async function signIn() {
  if (!crypto.subtle) {
    announce('Signing in needs a secure origin (https, or a loopback address).');
    return;
  }
  const verifier = randomString(48);
  const state = randomString(12);
  store.setItem('pkce_verifier', verifier);
  store.setItem('pkce_state', state);
  store.setItem('return_to', location.hash);
  const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
  const params = new URLSearchParams({
    client_id: clientId, response_type: 'code', redirect_uri: redirectUri, scope: scopes, state,
    code_challenge: challenge, code_challenge_method: 'S256',
  });
  location.assign('/authorize?' + params.toString());
}

async function tokenRequest(fields) {
  const res = await fetch('/api/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  });
  const body = await res.json();
  if (!res.ok) throw new Error(body.error_description || body.error || 'the token request failed');
  store.setItem('access_token', body.access_token);
  if (body.refresh_token) store.setItem('refresh_token', body.refresh_token);
}

async function finishSignIn() {
  const q = new URLSearchParams(location.search);
  if (!q.has('code') && !q.has('error')) return;
  const back = store.getItem('return_to') || '';
  history.replaceState(null, '', location.pathname + back);
  if (q.has('error')) throw new Error('sign-in cancelled');
  if (q.get('state') !== store.getItem('pkce_state')) throw new Error('the sign-in answer does not match this page');
  await tokenRequest({
    grant_type: 'authorization_code', code: q.get('code'), redirect_uri: redirectUri,
    client_id: clientId, code_verifier: store.getItem('pkce_verifier') || '',
  });
}

// Refresh tokens rotate and a spent one revokes the sign-in, so calls that
// meet a 401 together share one refresh.
let refreshing = null;
function refresh(spent) {
  if (store.getItem('access_token') !== spent) return Promise.resolve();
  if (!refreshing) {
    refreshing = tokenRequest({ grant_type: 'refresh_token', refresh_token: store.getItem('refresh_token'), client_id: clientId })
      .finally(() => { refreshing = null; });
  }
  return refreshing;
}

// `body` is sent as JSON, unless `type` names the content type of a
// body already serialised (a cover's base64 text).
async function api(method, path, body, type) {
  for (let attempt = 0; ; attempt++) {
    const access = store.getItem('access_token');
    const res = await fetch(path, {
      method,
      headers: { authorization: 'Bearer ' + access, 'content-type': type || 'application/json' },
      body: body === undefined ? undefined : type ? body : JSON.stringify(body),
    });
    if (res.status === 401 && attempt === 0 && store.getItem('refresh_token')) {
      await refresh(access);
      continue;
    }
    return res;
  }
}

async function get(path) {
  const res = await api('GET', path);
  if (res.status === 404) throw new NotFound();
  if (!res.ok) throw new Error('the catalog answered ' + res.status);
  return res.status === 204 ? null : res.json();
}

class NotFound extends Error {}

// The message of a Spotify error object, or a fallback.
async function errorMessage(res) {
  try { return (await res.json()).error.message || 'the catalog answered ' + res.status; } catch (e) { return 'the catalog answered ' + res.status; }
}

async function send(method, path, body) {
  const res = await api(method, path, body);
  if (!res.ok) {
    const message = await errorMessage(res);
    announce('That did not work: ' + message);
    throw new Error(message);
  }
  return res.status === 204 || res.status === 202 ? null : res.json().catch(() => null);
}

// --- the device -------------------------------------------------------------
let me = null;
let deviceId = null;
let version = -1;
let view = null;
let lastReport = 0;

// "Chrome on Linux": the browser and the system, from the user-agent.
function deviceName() {
  const ua = navigator.userAgent;
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /OPR\//.test(ua) ? 'Opera'
    : /Chrom(e|ium)\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : 'Browser';
  const system = /Android/.test(ua) ? 'Android' : /iPhone|iPad|iPod/.test(ua) ? 'iOS' : /Windows/.test(ua) ? 'Windows'
    : /Mac OS X/.test(ua) ? 'macOS' : /CrOS/.test(ua) ? 'ChromeOS' : /Linux/.test(ua) ? 'Linux' : 'an unknown system';
  return browser + ' on ' + system;
}

async function register() {
  const mobile = /Android|iPhone|iPad|iPod/.test(navigator.userAgent);
  const res = await api('POST', '/connect/devices', { name: deviceName(), type: mobile ? 'Smartphone' : 'Computer', supports_volume: true });
  if (!res.ok) throw new Error('the device could not register (' + res.status + ')');
  const device = await res.json();
  deviceId = device.id;
  root.dataset.device = deviceId;
  root.dataset.deviceName = device.name;
  version = -1;
}

// A closed tab takes its device with it.
window.addEventListener('pagehide', () => {
  if (!deviceId) return;
  fetch('/connect/devices/' + deviceId, {
    method: 'DELETE', keepalive: true, headers: { authorization: 'Bearer ' + store.getItem('access_token') },
  }).catch(() => {});
});

function command(method, path, body) {
  return send(method, path + (path.includes('?') ? '&' : '?') + 'device_id=' + encodeURIComponent(deviceId), body);
}

// Plays `uris` (a list of tracks or episodes), or a context from `offset`.
function play(body) {
  return command('PUT', '/v1/me/player/play', body);
}

async function apply(v) {
  view = v;
  renderDeck(v);
  if (!v.is_active || !v.item) {
    if (!audio.paused) audio.pause();
    return;
  }
  const target = v.progress_ms / 1000;
  if (audio.dataset.track !== v.item.id) {
    audio.dataset.track = v.item.id;
    audio.src = v.item.stream_url;
    audio.currentTime = target;
  } else if (Math.abs(audio.currentTime - target) > 1.5) {
    audio.currentTime = target;
  }
  audio.volume = Math.min(1, Math.max(0, v.volume_percent / 100));
  if (v.is_playing) {
    try { await audio.play(); } catch (e) { announce('The browser blocked playback: press Play to allow audio.'); }
  } else if (!audio.paused) {
    audio.pause();
  }
}

async function report(ended) {
  if (!deviceId || !view || !view.is_active || !audio.dataset.track) return;
  lastReport = Date.now();
  await api('PUT', '/connect/devices/' + deviceId + '/state', {
    track_id: audio.dataset.track, progress_ms: Math.round(audio.currentTime * 1000), ended,
  });
}

async function follow() {
  for (;;) {
    try {
      const res = await api('GET', '/connect/devices/' + deviceId + '/state?after=' + version + '&wait=20');
      if (res.status === 404) { await register(); continue; }
      if (!res.ok) { await sleep(2000); continue; }
      const v = await res.json();
      version = v.version;
      await apply(v);
    } catch (e) {
      await sleep(2000);
    }
  }
}

// --- the deck ----------------------------------------------------------------
const deck = {};
function buildDeck() {
  const el = $('deck');
  const button = (id, label, name, onclick) => (deck[id] = h('button', { type: 'button', class: 'icon', id, 'aria-label': label, onclick }, icon(name)));
  deck.cover = h('img', { class: 'cover small', alt: '', hidden: true });
  deck.title = h('strong', { id: 'now-title' }, 'Nothing playing');
  deck.by = h('span', { class: 'muted', id: 'now-by' });
  deck.seek = h('input', { type: 'range', id: 'seek', min: 0, max: 1000, value: 0, step: 1, 'aria-label': 'Position', 'aria-valuetext': '0:00' });
  deck.time = h('span', { class: 'time muted', id: 'time' }, '0:00 / 0:00');
  deck.volume = h('input', { type: 'range', id: 'volume', min: 0, max: 100, value: 100, step: 5, 'aria-label': 'Volume' });
  el.replaceChildren(
    h('div', { class: 'now' }, deck.cover, h('div', { class: 'now-text' }, deck.title, deck.by)),
    h('div', { class: 'controls' },
      button('shuffle', 'Shuffle', 'shuffle', () => command('PUT', '/v1/me/player/shuffle?state=' + !(view && view.shuffle_state))),
      button('previous', 'Previous', 'previous', () => command('POST', '/v1/me/player/previous')),
      button('toggle', 'Play', 'play', () => togglePlay()),
      button('next', 'Next', 'next', () => command('POST', '/v1/me/player/next')),
      button('repeat', 'Repeat: off', 'repeat', () => {
        const next = { off: 'context', context: 'track', track: 'off' }[(view && view.repeat_state) || 'off'];
        command('PUT', '/v1/me/player/repeat?state=' + next);
      })),
    h('div', { class: 'bar' }, deck.seek, deck.time),
    h('div', { class: 'side' },
      h('label', { class: 'vol' }, icon('volume'), deck.volume),
      button('queue-button', 'Queue', 'queue', () => showQueue()),
      button('devices-button', 'Devices', 'devices', () => showDevices())),
  );
  deck.seek.addEventListener('change', () => {
    if (!audio.duration) return;
    const ms = Math.round((deck.seek.value / 1000) * audio.duration * 1000);
    command('PUT', '/v1/me/player/seek?position_ms=' + ms);
  });
  deck.volume.addEventListener('change', () => command('PUT', '/v1/me/player/volume?volume_percent=' + deck.volume.value));
  el.hidden = false;
}

function togglePlay() {
  if (view && view.is_active && view.is_playing) return command('PUT', '/v1/me/player/pause');
  if (view && view.is_active && view.item) return command('PUT', '/v1/me/player/play');
  return send('PUT', '/v1/me/player', { device_ids: [deviceId], play: true });
}

function byline(item) {
  if (!item) return '';
  if (item.artists) return item.artists.map((a) => a.name).join(', ');
  return (item.show || item.audiobook || {}).name || '';
}

function coverOf(item) {
  const images = (item && ((item.album && item.album.images) || item.images || (item.show && item.show.images))) || [];
  return images.length ? images[images.length > 1 ? 1 : 0].url : null;
}

function renderDeck(v) {
  const item = v.item;
  const mine = v.is_active;
  deck.title.textContent = item ? item.name : 'Nothing playing';
  deck.by.textContent = item ? byline(item) + (mine ? '' : ' · on another device') : '';
  const cover = coverOf(item);
  deck.cover.hidden = !cover;
  if (cover) deck.cover.src = cover;
  const playing = mine && v.is_playing;
  deck.toggle.replaceChildren(icon(playing ? 'pause' : 'play'));
  deck.toggle.setAttribute('aria-label', playing ? 'Pause' : 'Play');
  deck.shuffle.setAttribute('aria-pressed', String(!!v.shuffle_state));
  deck.repeat.setAttribute('aria-pressed', String(v.repeat_state !== 'off'));
  deck.repeat.setAttribute('aria-label', 'Repeat: ' + v.repeat_state);
  // "1" for repeating the track is drawn by the stylesheet, so the
  // button's visible text stays within its name ("Repeat: track").
  deck.repeat.classList.toggle('one', v.repeat_state === 'track');
  // Before anything plays the playback has no volume of its own yet.
  if (document.activeElement !== deck.volume && item && typeof v.volume_percent === 'number') deck.volume.value = v.volume_percent;
  root.dataset.playing = String(playing);
  if ('mediaSession' in navigator) {
    navigator.mediaSession.metadata = item ? new MediaMetadata({
      title: item.name, artist: byline(item), album: (item.album || {}).name || '',
      artwork: cover ? [{ src: cover, sizes: '300x300' }] : [],
    }) : null;
    navigator.mediaSession.playbackState = playing ? 'playing' : 'paused';
  }
}

function mediaSession() {
  if (!('mediaSession' in navigator)) return;
  const s = navigator.mediaSession;
  // The actions the browser accepted, listed on the root for tests.
  const set = [];
  const on = (action, fn) => { try { s.setActionHandler(action, fn); set.push(action); } catch (e) { /* unsupported action */ } };
  on('play', () => command('PUT', '/v1/me/player/play'));
  on('pause', () => command('PUT', '/v1/me/player/pause'));
  on('nexttrack', () => command('POST', '/v1/me/player/next'));
  on('previoustrack', () => command('POST', '/v1/me/player/previous'));
  on('seekto', (d) => command('PUT', '/v1/me/player/seek?position_ms=' + Math.round(d.seekTime * 1000)));
  root.dataset.mediaActions = set.join(',');
}

audio.addEventListener('timeupdate', () => {
  if (Date.now() - lastReport >= 1000) report(false).catch(() => {});
  if (audio.duration) {
    if (document.activeElement !== deck.seek) deck.seek.value = Math.round((audio.currentTime / audio.duration) * 1000);
    const text = clock(audio.currentTime * 1000) + ' / ' + clock(audio.duration * 1000);
    deck.time.textContent = text;
    deck.seek.setAttribute('aria-valuetext', text);
  }
});
audio.addEventListener('ended', () => report(true).catch(() => {}));

// --- dialogs -------------------------------------------------------------------
function dialog(title, ...body) {
  const close = h('button', { type: 'button', class: 'btn secondary small', onclick: () => d.close() }, 'Close');
  const d = h('dialog', { 'aria-labelledby': 'dialog-title' }, h('div', { class: 'head' }, h('h2', { id: 'dialog-title' }, title), close), ...body);
  d.addEventListener('close', () => d.remove());
  document.body.append(d);
  d.showModal();
  return d;
}

async function showQueue() {
  const q = await get('/v1/me/player/queue');
  dialog('Queue',
    h('h3', {}, 'Now playing'), q.currently_playing ? h('p', {}, q.currently_playing.name, ' · ', byline(q.currently_playing)) : h('p', { class: 'muted' }, 'Nothing'),
    h('h3', {}, 'Next up'),
    q.queue.length ? h('ol', { class: 'plain' }, q.queue.map((t) => h('li', {}, t.name, h('span', { class: 'muted' }, ' · ', byline(t))))) : h('p', { class: 'muted' }, 'Nothing queued.'));
}

async function showDevices() {
  const { devices } = await get('/v1/me/player/devices');
  const d = dialog('Devices', h('ul', { class: 'plain', id: 'device-list' }, devices.map((dev) => h('li', { class: 'row' },
    h('span', {}, dev.name, dev.id === deviceId ? ' (this tab)' : '', dev.is_active ? ' · playing here' : ''),
    dev.is_active ? null : h('button', {
      type: 'button', class: 'btn small secondary',
      onclick: async () => { await send('PUT', '/v1/me/player', { device_ids: [dev.id], play: true }); d.close(); announce('Playing on ' + dev.name); },
    }, 'Play here')))));
}

// Queues on the device that plays; with none active, on this tab (which
// then becomes the active device, with the item next in its queue).
async function addToQueue(t) {
  const path = '/v1/me/player/queue?uri=' + encodeURIComponent(t.uri);
  let res = await api('POST', path);
  if (res.status === 404) {
    const reason = await res.clone().json().then((b) => b.error.reason, () => null);
    if (reason === 'NO_ACTIVE_DEVICE') res = await api('POST', path + '&device_id=' + encodeURIComponent(deviceId));
  }
  if (!res.ok) { announce('That did not work: ' + await errorMessage(res)); return; }
  announce('Added ' + t.name + ' to the queue');
}

async function addToPlaylist(uri, name) {
  const lists = await get('/v1/me/playlists?limit=50');
  const mine = lists.items.filter((p) => me && p.owner.id === me.id);
  const input = h('input', { type: 'text', id: 'new-playlist-name', required: true, maxlength: 100 });
  const d = dialog('Add “' + name + '” to a playlist',
    h('ul', { class: 'plain' }, mine.map((p) => h('li', {}, h('button', {
      type: 'button', class: 'btn secondary small',
      onclick: async () => { await send('POST', '/v1/playlists/' + p.id + '/items', { uris: [uri] }); d.close(); announce('Added to ' + p.name); },
    }, p.name)))),
    h('form', {
      class: 'inline', onsubmit: async (e) => {
        e.preventDefault();
        const p = await send('POST', '/v1/me/playlists', { name: input.value.trim(), public: false });
        await send('POST', '/v1/playlists/' + p.id + '/items', { uris: [uri] });
        d.close();
        announce('Created ' + p.name + ' with ' + name);
      },
    }, h('div', { class: 'field' }, h('label', { for: 'new-playlist-name' }, 'New playlist'), input),
    h('button', { class: 'btn', type: 'submit' }, 'Create and add')));
}

// --- pieces of pages -------------------------------------------------------------
const link = (href, text, attrs) => h('a', { href, ...attrs }, text);
const artistLinks = (artists) => (artists || []).flatMap((a, i) => [i ? ', ' : '', link('#/artist/' + a.id, a.name)]);

function cover(item, size) {
  const src = coverOf(item);
  // Without artwork: the name's first letter on a tile.
  return src ? h('img', { class: 'cover ' + (size || ''), src, alt: '', loading: 'lazy' })
    : h('span', { class: 'cover ' + (size || '') + ' blank', 'aria-hidden': 'true' }, (item.name || '?').trim().charAt(0).toUpperCase());
}

// Where an episode or chapter was left (its `resume_point`, which the API
// fills from the player's reports): the position to start from, and words.
function resumeOf(t) {
  const r = t.resume_point;
  if (!r) return { ms: 0, text: '' };
  if (r.fully_played) return { ms: 0, text: 'Played' };
  if (r.resume_position_ms > 0) return { ms: r.resume_position_ms, text: clock(t.duration_ms - r.resume_position_ms) + ' left' };
  return { ms: 0, text: '' };
}

// A list of tracks or episodes; `playAt(i)` starts playback at row i.
function trackList(label, items, playAt, extra) {
  if (!items.length) return h('p', { class: 'muted' }, 'Nothing here yet.');
  return h('ol', { class: 'tracks', 'aria-label': label }, items.map((t, i) => {
    const resume = resumeOf(t);
    return h('li', { class: 'track', dataset: { uri: t.uri } },
      h('button', { type: 'button', class: 'icon play', 'aria-label': (resume.ms ? 'Resume ' : 'Play ') + t.name, onclick: () => playAt(i) }, icon('play')),
      h('div', { class: 'track-text' }, h('span', { class: 'name' }, t.name),
        h('span', { class: 'muted' }, t.artists ? artistLinks(t.artists) : byline(t), t.album ? [' · ', link('#/album/' + t.album.id, t.album.name)] : '')),
      resume.text ? h('span', { class: 'resume muted' }, resume.text) : null,
      h('span', { class: 'muted dur' }, clock(t.duration_ms)),
      h('button', { type: 'button', class: 'btn small secondary', 'aria-label': 'Add ' + t.name + ' to the queue', onclick: () => addToQueue(t) }, '+ Queue'),
      // Playlists take tracks and episodes, not chapters (Spotify's rule).
      t.chapter_number === undefined
        ? h('button', { type: 'button', class: 'btn small secondary', 'aria-label': 'Add ' + t.name + ' to a playlist', onclick: () => addToPlaylist(t.uri, t.name) }, '+ Playlist')
        : null,
      extra ? extra(t, i) : null);
  }));
}

function grid(label, items, href, sub) {
  if (!items.length) return h('p', { class: 'muted' }, 'Nothing here yet.');
  return h('ul', { class: 'tiles', 'aria-label': label }, items.map((x) => h('li', { class: 'tile' },
    h('a', { href: href(x) }, cover(x), h('span', { class: 'name' }, x.name)), h('span', { class: 'muted' }, sub ? sub(x) : ''))));
}

// An episode or chapter starts where the listener left it.
const playUris = (items) => (i) => play({ uris: items.map((t) => t.uri), offset: { position: i }, position_ms: resumeOf(items[i]).ms });
const playContext = (uri, items) => (i) => play({ context_uri: uri, offset: { position: i }, position_ms: items ? resumeOf(items[i]).ms : 0 });

// A button that stays named for its action ("Follow") and says with
// aria-pressed whether it is in effect; the stylesheet shows the state.
function toggleButton(label, on, doIt, undo, name) {
  let state = on;
  const b = h('button', { type: 'button', class: 'btn secondary toggle', 'aria-pressed': String(state), 'aria-label': name }, label);
  b.addEventListener('click', async () => {
    await (state ? undo() : doIt());
    state = !state;
    b.setAttribute('aria-pressed', String(state));
    announce(label + (state ? ': on' : ': off'));
  });
  return b;
}

// --- pages --------------------------------------------------------------------
const pages = {
  async home() {
    const [recent, releases] = await Promise.all([
      get('/v1/me/player/recently-played?limit=10'), get('/v1/browse/new-releases?limit=12'),
    ]);
    const tracks = recent.items.map((p) => p.track);
    return ['Home', h('h1', {}, 'Home'),
      h('h2', {}, 'Recently played'), trackList('Recently played', tracks, playUris(tracks)),
      h('h2', {}, 'New releases'), grid('New releases', releases.albums.items, (a) => '#/album/' + a.id, (a) => a.artists.map((x) => x.name).join(', '))];
  },

  async search(params) {
    const q = params.get('q') || '';
    const input = h('input', { type: 'search', id: 'search-input', value: q, autocomplete: 'off', placeholder: 'Songs, albums, artists, playlists' });
    const results = h('div', { id: 'results', 'aria-live': 'polite' });
    let timer = null;
    let seq = 0;
    const run = async () => {
      const text = input.value.trim();
      history.replaceState(null, '', '#/search' + (text ? '?q=' + encodeURIComponent(text) : ''));
      const mine = ++seq;
      if (!text) { results.replaceChildren(); return; }
      const r = await get('/v1/search?type=track,album,artist,playlist,show,audiobook&limit=8&q=' + encodeURIComponent(text));
      if (mine !== seq) return;
      const tracks = r.tracks.items;
      const lists = r.playlists.items.filter(Boolean);
      const spoken = [...r.shows.items, ...r.audiobooks.items].filter(Boolean);
      const found = [
        tracks.length ? [h('h2', {}, 'Songs'), trackList('Songs', tracks, playUris(tracks))] : null,
        r.artists.items.length ? [h('h2', {}, 'Artists'), grid('Artists', r.artists.items, (a) => '#/artist/' + a.id, () => 'Artist')] : null,
        r.albums.items.length ? [h('h2', {}, 'Albums'), grid('Albums', r.albums.items, (a) => '#/album/' + a.id, (a) => a.artists.map((x) => x.name).join(', '))] : null,
        lists.length ? [h('h2', {}, 'Playlists'), grid('Playlists', lists, (p) => '#/playlist/' + p.id, (p) => p.owner.display_name || '')] : null,
        spoken.length ? [h('h2', {}, 'Podcasts and audiobooks'), grid('Podcasts and audiobooks', spoken, (x) => '#/' + x.type + '/' + x.id, (x) => x.publisher || '')] : null,
      ].filter(Boolean);
      results.replaceChildren(...nodes(found.length ? found : h('p', {}, 'Nothing matches “' + text + '”.')));
      root.dataset.searched = text;
    };
    input.addEventListener('input', () => { clearTimeout(timer); timer = setTimeout(() => run().catch(() => {}), 150); });
    if (q) run().catch(() => {});
    return ['Search', h('h1', {}, 'Search'),
      h('form', { role: 'search', onsubmit: (e) => { e.preventDefault(); run(); } },
        h('div', { class: 'field' }, h('label', { for: 'search-input' }, 'Search the catalog'), input)),
      results];
  },

  async album(params, id) {
    const a = await get('/v1/albums/' + id);
    const [saved] = await get('/v1/me/albums/contains?ids=' + id);
    const tracks = a.tracks.items.map((t) => ({ ...t, album: null }));
    return [a.name, h('div', { class: 'hero' }, cover(a, 'large'), h('div', {},
      h('p', { class: 'muted' }, a.album_type === 'single' ? 'Single' : 'Album', ' · ', a.release_date),
      h('h1', {}, a.name), h('p', {}, artistLinks(a.artists)),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'btn', onclick: () => playContext(a.uri)(0) }, 'Play'),
        toggleButton('Save to library', saved, () => send('PUT', '/v1/me/albums?ids=' + id), () => send('DELETE', '/v1/me/albums?ids=' + id))))),
    trackList('Tracks', tracks, playContext(a.uri))];
  },

  async artist(params, id) {
    const [a, top, albums, [following]] = await Promise.all([
      get('/v1/artists/' + id), get('/v1/artists/' + id + '/top-tracks'),
      get('/v1/artists/' + id + '/albums?limit=20'), get('/v1/me/following/contains?type=artist&ids=' + id),
    ]);
    const related = await get('/v1/artists/' + id + '/related-artists').catch(() => ({ artists: [] }));
    return [a.name, h('div', { class: 'hero' }, cover(a, 'large round'), h('div', {},
      h('p', { class: 'muted' }, 'Artist', a.genres.length ? ' · ' + a.genres.join(', ') : ''),
      h('h1', {}, a.name),
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'btn', onclick: () => playContext(a.uri)(0) }, 'Play'),
        toggleButton('Follow', following, () => send('PUT', '/v1/me/following?type=artist&ids=' + id),
          () => send('DELETE', '/v1/me/following?type=artist&ids=' + id))))),
    h('h2', {}, 'Popular'), trackList('Popular', top.tracks, playUris(top.tracks)),
    h('h2', {}, 'Albums'), grid('Albums', albums.items, (x) => '#/album/' + x.id, (x) => x.release_date.slice(0, 4)),
    related.artists.length ? [h('h2', {}, 'Fans also like'), grid('Related artists', related.artists, (x) => '#/artist/' + x.id, () => 'Artist')] : null];
  },

  async playlist(params, id) {
    const p = await get('/v1/playlists/' + id);
    let items = (await get('/v1/playlists/' + id + '/items?limit=100')).items.filter((x) => x.track);
    const own = me && p.owner.id === me.id;
    const [followed] = await get('/v1/playlists/' + id + '/followers/contains?ids=' + encodeURIComponent(me.id));
    const list = h('div', {});
    let dragged = null;

    // Moves row `from` before `to` on the server, then redraws.
    const move = async (from, to, focusAt) => {
      if (to < 0 || to > items.length || to === from || to === from + 1) return;
      await send('PUT', '/v1/playlists/' + id + '/items', { range_start: from, insert_before: to, range_length: 1 });
      const [row] = items.splice(from, 1);
      items.splice(to > from ? to - 1 : to, 0, row);
      draw();
      announce(row.track.name + ' moved to position ' + (focusAt + 1) + ' of ' + items.length);
      const target = list.querySelectorAll('.track')[focusAt];
      if (target) target.querySelector(focusAt > from ? '.down' : '.up')?.focus();
    };
    const remove = async (i) => {
      const t = items[i].track;
      await send('DELETE', '/v1/playlists/' + id + '/items', { tracks: [{ uri: t.uri, positions: [i] }] });
      items.splice(i, 1);
      draw();
      announce('Removed ' + t.name);
    };
    const controls = (t, i) => own ? h('span', { class: 'reorder' },
      h('button', { type: 'button', class: 'icon up', 'aria-label': 'Move ' + t.name + ' up', disabled: i === 0, onclick: () => move(i, i - 1, i - 1) }, icon('up')),
      h('button', { type: 'button', class: 'icon down', 'aria-label': 'Move ' + t.name + ' down', disabled: i === items.length - 1, onclick: () => move(i, i + 2, i + 1) }, icon('down')),
      h('button', { type: 'button', class: 'icon', 'aria-label': 'Remove ' + t.name, onclick: () => remove(i) }, icon('remove'))) : null;
    const draw = () => {
      const tracks = items.map((x) => x.track);
      const ol = trackList('Playlist items', tracks, playContext(p.uri), controls);
      if (own && ol.tagName === 'OL') {
        ol.querySelectorAll('.track').forEach((row, i) => {
          row.draggable = true;
          row.addEventListener('dragstart', (e) => { dragged = i; e.dataTransfer.effectAllowed = 'move'; row.classList.add('dragging'); });
          row.addEventListener('dragend', () => row.classList.remove('dragging'));
          row.addEventListener('dragover', (e) => e.preventDefault());
          row.addEventListener('drop', (e) => { e.preventDefault(); if (dragged !== null) move(dragged, dragged < i ? i + 1 : i, i); dragged = null; });
        });
      }
      list.replaceChildren(ol);
    };
    draw();

    let edit = null;
    if (own) {
      const name = h('input', { type: 'text', id: 'playlist-name', value: p.name, required: true, maxlength: 100 });
      const description = h('input', { type: 'text', id: 'playlist-description', value: p.description || '', maxlength: 300 });
      edit = h('details', {}, h('summary', {}, 'Edit details'), h('form', {
        onsubmit: async (e) => {
          e.preventDefault();
          await send('PUT', '/v1/playlists/' + id, { name: name.value.trim(), description: description.value });
          announce('Saved');
          route();
        },
      }, h('div', { class: 'field' }, h('label', { for: 'playlist-name' }, 'Name'), name),
      h('div', { class: 'field' }, h('label', { for: 'playlist-description' }, 'Description'), description),
      h('button', { class: 'btn', type: 'submit' }, 'Save')), coverForm(id));
    }
    return [p.name, h('div', { class: 'hero' }, cover(p, 'large'), h('div', {},
      h('p', { class: 'muted' }, p.public ? 'Public playlist' : 'Private playlist', ' · ', p.owner.display_name || p.owner.id, ' · ', p.tracks.total + ' items'),
      h('h1', {}, p.name), p.description ? h('p', {}, p.description) : null,
      h('div', { class: 'actions' },
        h('button', { type: 'button', class: 'btn', onclick: () => playContext(p.uri)(0), disabled: !items.length }, 'Play'),
        own ? null : toggleButton('Follow', followed, () => send('PUT', '/v1/playlists/' + id + '/followers'),
          () => send('DELETE', '/v1/playlists/' + id + '/followers'))))),
    edit, own ? h('p', { class: 'muted hint' }, 'Reorder with the arrow buttons, or drag a row.') : null, list];
  },

  async show(params, id) { return spoken('shows', 'episodes', id); },
  async audiobook(params, id) { return spoken('audiobooks', 'chapters', id); },

  async library(params) {
    const tab = params.get('tab') || 'tracks';
    const tabs = [['tracks', 'Songs'], ['albums', 'Albums'], ['artists', 'Artists'], ['playlists', 'Playlists'], ['shows', 'Podcasts'],
      ['episodes', 'Episodes'], ['audiobooks', 'Audiobooks']];
    let body;
    if (tab === 'tracks') {
      const tracks = (await get('/v1/me/tracks?limit=50')).items.map((x) => x.track);
      body = trackList('Saved songs', tracks, playUris(tracks));
    } else if (tab === 'episodes') {
      const episodes = (await get('/v1/me/episodes?limit=50')).items.map((x) => x.episode);
      body = trackList('Saved episodes', episodes, playUris(episodes));
    } else if (tab === 'albums') {
      body = grid('Saved albums', (await get('/v1/me/albums?limit=50')).items.map((x) => x.album), (a) => '#/album/' + a.id, (a) => a.artists.map((x) => x.name).join(', '));
    } else if (tab === 'artists') {
      body = grid('Followed artists', (await get('/v1/me/following?type=artist&limit=50')).artists.items, (a) => '#/artist/' + a.id, () => 'Artist');
    } else if (tab === 'shows' || tab === 'audiobooks') {
      const r = await get('/v1/me/' + tab + '?limit=50');
      const kind = tab === 'shows' ? 'show' : 'audiobook';
      body = grid(tab, r.items.map((x) => x[kind] || x), (s) => '#/' + kind + '/' + s.id, (s) => s.publisher || '');
    } else {
      const input = h('input', { type: 'text', id: 'create-name', required: true, maxlength: 100 });
      body = [h('form', {
        class: 'inline', onsubmit: async (e) => {
          e.preventDefault();
          const p = await send('POST', '/v1/me/playlists', { name: input.value.trim(), public: false });
          location.hash = '#/playlist/' + p.id;
        },
      }, h('div', { class: 'field' }, h('label', { for: 'create-name' }, 'New playlist'), input), h('button', { class: 'btn', type: 'submit' }, 'Create')),
      grid('Your playlists', (await get('/v1/me/playlists?limit=50')).items, (p) => '#/playlist/' + p.id, (p) => p.owner.display_name || '')];
    }
    return ['Library', h('h1', {}, 'Your library'),
      h('nav', { class: 'tabs', 'aria-label': 'Library' }, tabs.map(([k, label]) => link('#/library?tab=' + k, label, { 'aria-current': k === tab ? 'page' : null }))),
      body];
  },
};

// Spotify's limit on a custom cover: a JPEG of at most 256 KB, sent as
// base64 text. Checked here first so the listener hears why at once; the
// server checks the same and its message is shown when it refuses.
const MAX_COVER_BYTES = 256 * 1024;

function base64(bytes) {
  let s = '';
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function coverForm(id) {
  const file = h('input', { type: 'file', id: 'cover-file', accept: 'image/jpeg', 'aria-describedby': 'cover-hint cover-error' });
  const error = h('p', { class: 'error', id: 'cover-error', role: 'alert' });
  return h('form', {
    id: 'cover-form', onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      const f = file.files[0];
      if (!f) { error.textContent = 'Choose a JPEG image first.'; file.focus(); return; }
      if (f.size > MAX_COVER_BYTES) {
        error.textContent = 'The image is ' + Math.ceil(f.size / 1024) + ' KB: a cover may be at most 256 KB. Choose a smaller JPEG.';
        file.focus();
        return;
      }
      const bytes = new Uint8Array(await f.arrayBuffer());
      if (!(bytes[0] === 0xFF && bytes[1] === 0xD8 && bytes[2] === 0xFF)) { error.textContent = 'The cover must be a JPEG image.'; file.focus(); return; }
      const res = await api('PUT', '/v1/playlists/' + id + '/images', base64(bytes), 'image/jpeg');
      if (!res.ok) { error.textContent = 'The cover was refused: ' + await errorMessage(res); file.focus(); return; }
      announce('Cover changed');
      route();
    },
  }, h('div', { class: 'field' }, h('label', { for: 'cover-file' }, 'Cover image'),
    h('p', { class: 'hint muted', id: 'cover-hint' }, 'A JPEG of at most 256 KB.'), file),
  error, h('button', { class: 'btn', type: 'submit' }, 'Upload cover'));
}

// The developer page: the listener's own OAuth apps (`/api/apps`, which
// answers only this app's tokens). A secret is shown once, in the page
// that made it, and never again.
function secretBox(title, app, secret) {
  return h('div', { class: 'card once', role: 'alert', tabindex: '-1', id: 'secret' },
    h('h2', {}, title),
    h('p', {}, 'Copy the client secret now: it is shown only this once. Rotating makes a new one and stops this one working.'),
    h('dl', {}, h('dt', {}, 'Client id'), h('dd', {}, h('code', { id: 'shown-client-id' }, app)),
      h('dt', {}, 'Client secret'), h('dd', {}, h('code', { id: 'shown-secret' }, secret))));
}

const FLOWS = [['authorization_code', 'Authorization code (a server app that keeps the secret)'],
  ['pkce', 'Authorization code with PKCE (a browser or phone app, no secret)'],
  ['client_credentials', 'Client credentials (catalog reads without a user)']];
const flowBoxes = (checked) => FLOWS.map(([value, label]) => h('label', { class: 'check' },
  h('input', { type: 'checkbox', name: 'flows', value, checked: checked(value) }), label));
const checkedFlows = (boxes) => boxes.map((b) => b.querySelector('input')).filter((i) => i.checked).map((i) => i.value);

// "12 of 600 calls in this 30-second window, 18 s left": what the app
// spent of its rate limit (on the node that answered).
function rateText(r) {
  if (!r.limit) return 'No rate limit on this catalog.';
  if (!r.used) return 'No calls in the current window (' + r.limit + ' per ' + r.window_secs + ' seconds).';
  return r.used + ' of ' + r.limit + ' calls in this ' + r.window_secs + '-second window, ' + r.resets_in_secs + ' s left.';
}

// Editing an app: its name, redirect URIs and flows (its secret stays).
function editApp(a) {
  const key = a.client_id;
  const name = h('input', { type: 'text', id: 'edit-name-' + key, required: true, maxlength: 100, value: a.name });
  const uris = h('textarea', { id: 'edit-uris-' + key, rows: 3 });
  uris.value = a.redirect_uris.join('\n');
  const boxes = flowBoxes((f) => a.flows.includes(f));
  const error = h('p', { class: 'error', role: 'alert' });
  return h('details', { class: 'edit-app' }, h('summary', { 'aria-label': 'Edit ' + a.name }, 'Edit'), h('form', {
    onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      const res = await api('PUT', '/api/apps/' + key, {
        name: name.value.trim(), redirect_uris: uris.value.split(/\s+/).filter(Boolean), flows: checkedFlows(boxes),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { error.textContent = (body.error && body.error.message) || 'The app could not be saved.'; name.focus(); return; }
      announce('Saved ' + body.name);
      route();
    },
  }, h('div', { class: 'field' }, h('label', { for: 'edit-name-' + key }, 'Name'), name),
  h('div', { class: 'field' }, h('label', { for: 'edit-uris-' + key }, 'Redirect URIs, one a line'), uris),
  h('fieldset', {}, h('legend', {}, 'Flows it may use'), boxes),
  error, h('button', { class: 'btn', type: 'submit' }, 'Save changes')));
}

pages.developer = async function developer() {
  const { items } = await get('/api/apps');
  const shown = h('div', {});
  const name = h('input', { type: 'text', id: 'app-name', required: true, maxlength: 100 });
  const uris = h('textarea', { id: 'app-uris', rows: 3, 'aria-describedby': 'app-uris-hint' });
  const boxes = flowBoxes((f) => f !== 'client_credentials');
  const error = h('p', { class: 'error', id: 'app-error', role: 'alert' });
  const form = h('form', {
    class: 'card', 'aria-labelledby': 'create-app-title', onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      const res = await api('POST', '/api/apps', {
        name: name.value.trim(),
        redirect_uris: uris.value.split(/\s+/).filter(Boolean),
        flows: checkedFlows(boxes),
      });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { error.textContent = (body.error && body.error.message) || 'The app could not be created.'; name.focus(); return; }
      await route();
      const box = secretBox('Created ' + body.name, body.client_id, body.client_secret);
      $('shown').replaceChildren(box);
      box.focus();
    },
  }, h('h2', { id: 'create-app-title' }, 'Create an app'),
  h('div', { class: 'field' }, h('label', { for: 'app-name' }, 'Name'), name),
  h('div', { class: 'field' }, h('label', { for: 'app-uris' }, 'Redirect URIs'),
    h('p', { class: 'hint muted', id: 'app-uris-hint' }, 'One a line, for example http://127.0.0.1:8888/callback'), uris),
  h('fieldset', {}, h('legend', {}, 'Flows it may use'), boxes),
  error, h('button', { class: 'btn', type: 'submit' }, 'Create app'));
  shown.id = 'shown';
  const list = items.length ? h('ul', { class: 'plain apps' }, items.map((a) => h('li', { class: 'card', dataset: { clientId: a.client_id } },
    h('h3', {}, a.name),
    h('dl', {}, h('dt', {}, 'Client id'), h('dd', {}, h('code', {}, a.client_id)),
      h('dt', {}, 'Redirect URIs'), h('dd', {}, a.redirect_uris.length ? a.redirect_uris.join(', ') : 'none'),
      h('dt', {}, 'Flows'), h('dd', {}, a.flows.join(', ')),
      h('dt', {}, 'Rate limit'), h('dd', { class: 'rate' }, rateText(a.rate_limit))),
    editApp(a),
    h('div', { class: 'actions' },
      h('button', {
        type: 'button', class: 'btn secondary small', onclick: async () => {
          if (!window.confirm('Rotate the secret of ' + a.name + '? The current secret stops working at once.')) return;
          const r = await send('POST', '/api/apps/' + a.client_id + '/secret');
          const box = secretBox('New secret for ' + a.name, a.client_id, r.client_secret);
          $('shown').replaceChildren(box);
          box.focus();
        },
      }, 'Rotate secret'),
      h('button', {
        type: 'button', class: 'btn danger small', onclick: async () => {
          if (!window.confirm('Delete ' + a.name + '? Every token it holds stops working.')) return;
          await send('DELETE', '/api/apps/' + a.client_id);
          announce('Deleted ' + a.name);
          route();
        },
      }, 'Delete'))))) : h('p', { class: 'muted' }, 'No apps yet: create one below to get a client id for a Spotify client.');
  return ['Developer', h('h1', {}, 'Your apps'),
    h('p', {}, 'Apps reach this catalog through the Spotify Web API with their client id: point a Spotify library at this address instead of api.spotify.com and accounts.spotify.com.'),
    shown, list, form];
};

// The administration page (operators only; `/api/admin` answers 404 to
// anyone else): scan a folder on the server with its progress and the
// files it could not read, and the listeners with their apps.
function scanView(scan) {
  if (!scan) return h('p', { class: 'muted' }, 'No scan has run from this page yet.');
  const state = scan.error ? 'Stopped: ' + scan.error : scan.finished ? 'Finished' : 'Scanning';
  return h('div', {},
    h('p', { id: 'scan-state' }, state, ' · ', scan.dir),
    h('progress', { id: 'scan-progress', max: Math.max(scan.total, 1), value: scan.done, 'aria-label': 'Scan progress' }),
    h('p', { id: 'scan-counts' }, scan.done + ' of ' + scan.total + ' files: ' + scan.added + ' added, ' + scan.unchanged + ' unchanged, ' + scan.failed + ' not readable, ' + scan.removed + ' removed'),
    scan.problems.length ? h('div', { class: 'table-wrap' }, h('table', { class: 'stack', id: 'scan-problems' },
      h('caption', {}, 'Files the scan could not read'),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'File'), h('th', { scope: 'col' }, 'Problem'), h('th', { scope: 'col' }, 'Imported'))),
      h('tbody', {}, scan.problems.map((p) => h('tr', {},
        h('td', { 'data-label': 'File' }, h('code', {}, p.path)), h('td', { 'data-label': 'Problem' }, p.problem),
        h('td', { 'data-label': 'Imported' }, p.imported ? 'yes, without analysis' : 'no')))))) : null);
}

pages.admin = async function admin() {
  const [{ scan }, users] = await Promise.all([get('/api/admin/scan'), get('/api/admin/users')]);
  const status = h('div', { id: 'scan-status', 'aria-live': 'polite' }, scanView(scan));
  const poll = async () => {
    if (root.dataset.page !== 'admin') return;
    const now = (await get('/api/admin/scan')).scan;
    status.replaceChildren(scanView(now));
    if (now && !now.finished) setTimeout(() => poll().catch(() => {}), 500);
    else if (now) announce('Scan finished: ' + now.added + ' added, ' + now.failed + ' not readable');
  };
  if (scan && !scan.finished) setTimeout(() => poll().catch(() => {}), 500);
  const dir = h('input', { type: 'text', id: 'scan-dir', required: true, value: scan ? scan.dir : '', 'aria-describedby': 'scan-dir-hint' });
  const error = h('p', { class: 'error', role: 'alert' });
  const form = h('form', {
    class: 'inline', onsubmit: async (e) => {
      e.preventDefault();
      error.textContent = '';
      const res = await api('POST', '/api/admin/scan', { dir: dir.value.trim() });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { error.textContent = (body.error && body.error.message) || 'The scan could not start.'; dir.focus(); return; }
      announce('Scan started');
      status.replaceChildren(scanView(body.scan));
      setTimeout(() => poll().catch(() => {}), 300);
    },
  }, h('div', { class: 'field' }, h('label', { for: 'scan-dir' }, 'Folder on the server'),
    h('p', { class: 'hint muted', id: 'scan-dir-hint' }, 'An absolute path, for example /srv/music. New and changed files are imported, missing ones removed.'), dir),
  h('button', { class: 'btn', type: 'submit' }, 'Scan'));
  const people = h('div', { class: 'table-wrap' }, h('table', { class: 'stack', id: 'listeners' },
    h('caption', {}, 'Listeners and their apps'),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Name'), h('th', { scope: 'col' }, 'Role'), h('th', { scope: 'col' }, 'Status'),
      h('th', { scope: 'col' }, 'Apps'), h('th', { scope: 'col' }, 'Actions'))),
    h('tbody', {}, users.items.map((u) => h('tr', { dataset: { user: u.username } },
      h('td', { 'data-label': 'Name' }, u.username), h('td', { 'data-label': 'Role' }, u.operator ? 'Operator' : 'Listener'),
      h('td', { 'data-label': 'Status' }, u.disabled ? 'Disabled' : 'Active'),
      h('td', { 'data-label': 'Apps' }, u.apps.length ? u.apps.map((a) => a.name + ' (' + a.client_id.slice(0, 8) + '…)').join(', ') : 'none'),
      h('td', { 'data-label': 'Actions' }, me && u.id === me.id ? h('span', { class: 'muted' }, 'You') : h('div', { class: 'actions' },
        h('button', {
          type: 'button', class: 'btn secondary small', 'aria-label': (u.disabled ? 'Enable ' : 'Disable ') + u.username,
          onclick: async () => {
            await send('PUT', '/api/admin/users/' + u.id, { disabled: !u.disabled });
            await route();
            announce((u.disabled ? 'Enabled ' : 'Disabled ') + u.username);
          },
        }, u.disabled ? 'Enable' : 'Disable'),
        h('button', {
          type: 'button', class: 'btn danger small', 'aria-label': 'Delete ' + u.username,
          onclick: async () => {
            if (!window.confirm('Delete ' + u.username + ' with their playlists, library and apps? This cannot be undone.')) return;
            await send('DELETE', '/api/admin/users/' + u.id);
            await route();
            announce('Deleted ' + u.username);
          },
        }, 'Delete'))))))));
  const username = h('input', { type: 'text', id: 'new-username', required: true, maxlength: 64, autocomplete: 'off', 'aria-describedby': 'new-username-hint' });
  const operatorBox = h('input', { type: 'checkbox', id: 'new-operator' });
  const userError = h('p', { class: 'error', role: 'alert' });
  const addUser = h('form', {
    class: 'card', 'aria-labelledby': 'add-listener-title', onsubmit: async (e) => {
      e.preventDefault();
      userError.textContent = '';
      const res = await api('POST', '/api/admin/users', { username: username.value.trim(), operator: operatorBox.checked });
      const body = await res.json().catch(() => ({}));
      if (!res.ok) { userError.textContent = (body.error && body.error.message) || 'The listener could not be created.'; username.focus(); return; }
      await route();
      const box = h('div', { class: 'card once', role: 'alert', tabindex: '-1', id: 'new-listener' },
        h('h2', {}, 'Created ' + body.username),
        h('p', {}, 'Give them this password now: it is shown only this once.'),
        h('dl', {}, h('dt', {}, 'User name'), h('dd', {}, h('code', {}, body.username)),
          h('dt', {}, 'Password'), h('dd', {}, h('code', { id: 'new-password' }, body.password))));
      $('created-listener').replaceChildren(box);
      box.focus();
    },
  }, h('h3', { id: 'add-listener-title' }, 'Add a listener'),
  h('div', { class: 'field' }, h('label', { for: 'new-username' }, 'User name'),
    h('p', { class: 'hint muted', id: 'new-username-hint' }, 'Letters, digits, dots, dashes and underscores. A password is made for them.'), username),
  h('label', { class: 'check' }, operatorBox, 'Operator (may administer the library)'),
  userError, h('button', { class: 'btn', type: 'submit' }, 'Add listener'));
  return ['Administration', h('h1', {}, 'Administration'),
    h('h2', {}, 'Scan the library'), form, error, status,
    h('h2', {}, 'Listeners'), h('div', { id: 'created-listener' }), people, addUser];
};

// A show with its episodes (each can be saved) or an audiobook with its
// chapters; each row shows where the listener left it.
async function spoken(kind, items, id) {
  const [s, { items: list }, [saved]] = await Promise.all([
    get('/v1/' + kind + '/' + id), get('/v1/' + kind + '/' + id + '/' + items + '?limit=50'),
    get('/v1/me/' + kind + '/contains?ids=' + id),
  ]);
  const episodes = kind === 'shows' && list.length ? await get('/v1/me/episodes/contains?ids=' + list.map((e) => e.id).join(',')) : [];
  const saveEpisode = (e, i) => toggleButton('Save', episodes[i], () => send('PUT', '/v1/me/episodes?ids=' + e.id),
    () => send('DELETE', '/v1/me/episodes?ids=' + e.id), 'Save ' + e.name);
  return [s.name, h('div', { class: 'hero' }, cover(s, 'large'), h('div', {},
    h('p', { class: 'muted' }, kind === 'shows' ? 'Podcast' : 'Audiobook', ' · ', s.publisher || ''),
    h('h1', {}, s.name), h('p', {}, s.description || ''),
    h('div', { class: 'actions' },
      h('button', { type: 'button', class: 'btn', onclick: () => playContext(s.uri, list)(0), disabled: !list.length }, 'Play'),
      toggleButton('Save to library', saved, () => send('PUT', '/v1/me/' + kind + '?ids=' + id), () => send('DELETE', '/v1/me/' + kind + '?ids=' + id))))),
  trackList(kind === 'shows' ? 'Episodes' : 'Chapters', list, playContext(s.uri, list), kind === 'shows' ? saveEpisode : null)];
}

// --- routing ---------------------------------------------------------------------
const navItems = [['#/', 'Home', 'home'], ['#/search', 'Search', 'search'], ['#/library', 'Library', 'library'], ['#/developer', 'Developer', 'developer']];

async function route() {
  const hash = location.hash.replace(/^#/, '') || '/';
  const [path, query] = hash.split('?');
  const [, name, id] = path.split('/');
  const page = name || 'home';
  const params = new URLSearchParams(query || '');
  const target = $('view');
  for (const a of $('nav').querySelectorAll('a')) {
    if (a.dataset.page === page) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  let title;
  let content;
  try {
    if (!Object.hasOwn(pages, page)) throw new NotFound();
    [title, ...content] = await pages[page](params, id);
  } catch (e) {
    title = e instanceof NotFound ? 'Not found' : 'Something went wrong';
    content = [h('h1', {}, title), h('p', {}, e instanceof NotFound ? 'There is nothing at this address.' : e.message), link('#/', 'Go home')];
  }
  target.replaceChildren(...nodes(content));
  document.title = title + ' · svc catalog';
  root.dataset.page = page;
  if (page === 'search') $('search-input').focus(); else $('main').focus();
  announce(title);
}

async function start() {
  const signinRow = $('signin-row');
  try {
    await finishSignIn();
  } catch (e) {
    announce('Sign-in failed: ' + e.message);
  }
  if (!store.getItem('access_token')) {
    signinRow.hidden = false;
    $('signin').addEventListener('click', () => signIn());
    return;
  }
  try {
    me = await get('/v1/me');
    await register();
  } catch (e) {
    store.removeItem('access_token');
    signinRow.hidden = false;
    $('signin').addEventListener('click', () => signIn());
    announce('Please sign in again.');
    return;
  }
  $('landing').hidden = true;
  $('view').hidden = false;
  const nav = $('nav');
  // The administration page is listed for operators only.
  const operator = (await api('GET', '/api/admin/scan')).ok;
  const items = operator ? [...navItems, ['#/admin', 'Admin', 'admin']] : navItems;
  nav.replaceChildren(...items.map(([href, text, page]) => link(href, text, { dataset: { page } })));
  nav.hidden = false;
  $('who').replaceChildren(h('span', {}, me.display_name || me.id),
    h('button', { type: 'button', class: 'btn small secondary', id: 'signout', onclick: () => { store.clear(); location.assign('/'); } }, 'Sign out'));
  buildDeck();
  mediaSession();
  window.addEventListener('hashchange', route);
  await route();
  root.dataset.ready = 'true';
  follow();
}

start();
