// The catalog's web player. It logs in with OAuth (authorization code with
// PKCE, as the catalog's own public client), registers this page as a
// device, waits for playback changes on the device protocol and plays them
// through <audio> and the signed stream links. Progress and the end of each
// track are reported back, so the server knows where playback is and the
// listening history fills. Self-contained: no library, no CDN.
(() => {
  'use strict';
  const root = document.getElementById('player');
  const clientId = root.dataset.clientId;
  const redirectUri = root.dataset.redirectUri;
  const scopes = 'streaming user-read-playback-state user-modify-playback-state user-read-currently-playing';
  const store = window.sessionStorage;
  const audio = document.getElementById('audio');
  const $ = (id) => document.getElementById(id);
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  let deviceId = null;
  let version = -1;
  let view = null;
  let lastReport = 0;

  function status(text) {
    $('status').textContent = text;
  }

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

  async function login() {
    if (!crypto.subtle) {
      status('Logging in needs a secure origin (https, or a loopback address).');
      return;
    }
    const verifier = randomString(48);
    const state = randomString(12);
    store.setItem('pkce_verifier', verifier);
    store.setItem('pkce_state', state);
    const challenge = base64url(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier)));
    const params = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: redirectUri,
      scope: scopes,
      state,
      code_challenge: challenge,
      code_challenge_method: 'S256',
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

  async function finishLogin() {
    const q = new URLSearchParams(location.search);
    if (!q.has('code') && !q.has('error')) return;
    history.replaceState(null, '', location.pathname);
    if (q.has('error')) throw new Error('login cancelled');
    if (q.get('state') !== store.getItem('pkce_state')) throw new Error('the login answer does not match this page');
    await tokenRequest({
      grant_type: 'authorization_code',
      code: q.get('code'),
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: store.getItem('pkce_verifier') || '',
    });
  }

  // Refresh tokens rotate and a spent one revokes the login, so calls that
  // meet a 401 together share one refresh instead of each sending the token.
  let refreshing = null;
  function refresh(spentAccess) {
    if (store.getItem('access_token') !== spentAccess) return Promise.resolve();
    if (!refreshing) {
      refreshing = tokenRequest({ grant_type: 'refresh_token', refresh_token: store.getItem('refresh_token'), client_id: clientId })
        .finally(() => { refreshing = null; });
    }
    return refreshing;
  }

  // A call with the access token; a 401 refreshes it once.
  async function api(method, path, body) {
    for (let attempt = 0; ; attempt++) {
      const access = store.getItem('access_token');
      const res = await fetch(path, {
        method,
        headers: { authorization: 'Bearer ' + access, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (res.status === 401 && attempt === 0 && store.getItem('refresh_token')) {
        await refresh(access);
        continue;
      }
      return res;
    }
  }

  async function register() {
    const res = await api('POST', '/connect/devices', { name: 'Web player', type: 'Computer', supports_volume: true });
    if (!res.ok) throw new Error('the device could not register (' + res.status + ')');
    deviceId = (await res.json()).id;
    root.dataset.device = deviceId;
    version = -1;
  }

  function clock(ms) {
    const s = Math.floor(ms / 1000);
    return Math.floor(s / 60) + ':' + String(s % 60).padStart(2, '0');
  }

  function render(v) {
    const item = v.item;
    $('title').textContent = item ? item.name : 'Nothing playing';
    // A track names its artists; an episode its show, a chapter its audiobook.
    const by = !item ? '' : item.artists ? item.artists.map((a) => a.name).join(', ')
      : (item.show || item.audiobook || {}).name || '';
    $('artists').textContent = by;
    $('toggle').textContent = v.is_playing ? 'Pause' : 'Play';
    root.dataset.version = String(v.version);
    root.dataset.playing = String(v.is_playing);
    status(v.is_active ? (v.is_playing ? 'Playing on this device.' : 'Paused on this device.') : 'Ready: choose this device ("Web player") in any client, or press Play here.');
  }

  async function apply(v) {
    view = v;
    render(v);
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
      try {
        await audio.play();
      } catch (e) {
        status('The browser blocked playback: press Play here to allow audio.');
      }
    } else if (!audio.paused) {
      audio.pause();
    }
  }

  async function report(ended) {
    if (!deviceId || !view || !view.is_active || !audio.dataset.track) return;
    lastReport = Date.now();
    await api('PUT', '/connect/devices/' + deviceId + '/state', {
      track_id: audio.dataset.track,
      progress_ms: Math.round(audio.currentTime * 1000),
      ended,
    });
  }

  // Waits for each new version of the playback and applies it.
  async function follow() {
    for (;;) {
      try {
        const res = await api('GET', '/connect/devices/' + deviceId + '/state?after=' + version + '&wait=20');
        if (res.status === 404) {
          await register();
          continue;
        }
        if (!res.ok) {
          status('The catalog answered ' + res.status + '; retrying.');
          await sleep(2000);
          continue;
        }
        const v = await res.json();
        version = v.version;
        await apply(v);
      } catch (e) {
        status('Connection lost; retrying.');
        await sleep(2000);
      }
    }
  }

  function command(method, path, body) {
    return api(method, path + (path.includes('?') ? '&' : '?') + 'device_id=' + encodeURIComponent(deviceId), body);
  }

  audio.addEventListener('timeupdate', () => {
    if (Date.now() - lastReport >= 1000) report(false).catch(() => {});
    if (audio.duration) {
      $('progress').value = audio.currentTime / audio.duration;
      $('time').textContent = clock(audio.currentTime * 1000) + ' / ' + clock(audio.duration * 1000);
    }
  });
  audio.addEventListener('ended', () => report(true).catch(() => {}));
  $('login-button').addEventListener('click', () => login());
  $('logout').addEventListener('click', () => {
    store.clear();
    location.reload();
  });
  $('here').addEventListener('click', () => api('PUT', '/v1/me/player', { device_ids: [deviceId], play: true }));
  $('toggle').addEventListener('click', () =>
    view && view.is_playing ? command('PUT', '/v1/me/player/pause') : command('PUT', '/v1/me/player/play'));
  $('next').addEventListener('click', () => command('POST', '/v1/me/player/next'));
  $('previous').addEventListener('click', () => command('POST', '/v1/me/player/previous'));

  (async () => {
    try {
      await finishLogin();
    } catch (e) {
      status('Login failed: ' + e.message);
    }
    if (!store.getItem('access_token')) {
      $('login').hidden = false;
      if (!$('status').textContent.startsWith('Login failed')) status('Not logged in.');
      return;
    }
    try {
      await register();
    } catch (e) {
      store.removeItem('access_token');
      $('login').hidden = false;
      status('Please log in again.');
      return;
    }
    $('deck').hidden = false;
    follow();
  })();
})();
