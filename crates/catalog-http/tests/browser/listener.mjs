// The listener app as a new listener meets it, in headless Chromium: the
// landing page, sign-in through the OAuth consent page, search with
// instant results, a track played in the app (its <audio> must advance),
// the Media Session's title and handlers, the track repeated, added to a
// new playlist and a second one to the queue, the playlist reordered with
// the keyboard and by dragging and given a cover (one over 256 KB refused
// first), an artist followed, an app made, rotated, edited (its rate-limit
// usage shown) and deleted on the developer page, a scan and listeners
// added, disabled and deleted on the administration page, playback going
// on across pages, an episode saved, played and resumed from its resume
// point, a keyboard-only pass (search, play, reorder), a second tab taking
// playback over, and the tab closed (its device must go). spotipy runs beside it
// as the same user with a token of its own (listener_watch.py) and must
// see each change. Every page is scanned with axe-core (no serious or
// critical violation), checked for sideways scrolling at 375 px and
// photographed at 1440 and 375 px, light and dark.
//
// Usage: node listener.mjs BASE_URL USERNAME PASSWORD ARTIFACT_DIR -- WATCH_COMMAND...
// Environment: BROWSER_MODULES (node_modules with playwright-core and
// axe-core), CHROMIUM.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readFileSync, mkdirSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';

const args = process.argv.slice(2);
const [base, username, password, artifacts] = args;
const watchCommand = args.slice(args.indexOf('--') + 1);
const require = createRequire(join(process.env.BROWSER_MODULES || '.', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const shots = join(artifacts, 'listener');
mkdirSync(shots, { recursive: true });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); } else { failed++; console.log(`FAIL ${name}: ${detail}`); }
}

// spotipy, one JSON line per question.
const watcher = spawn(watchCommand[0], watchCommand.slice(1), { stdio: ['pipe', 'pipe', 'inherit'] });
const answers = createInterface({ input: watcher.stdout });
const pending = [];
answers.on('line', (line) => { const next = pending.shift(); if (next) next(JSON.parse(line)); });
const ask = (request) => new Promise((resolve) => { pending.push(resolve); watcher.stdin.write(JSON.stringify(request) + '\n'); });
// The watcher's first line says it has signed in.
const ready = new Promise((resolve) => pending.push(resolve));
async function spotipySees(what, request) {
  const answer = await ask(request);
  check(`spotipy sees ${what}`, answer.ok, answer.detail);
}

async function axe(page) {
  await page.evaluate(axeSource + ';0');
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/** Light and dark, 1440 and 375 px: screenshots, axe, no sideways scrolling. */
async function look(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await sleep(150);
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      check(`${name} at ${width} px (${scheme}): no sideways scrolling`, overflow <= 0, `${overflow}px too wide`);
      await page.screenshot({ path: join(shots, `${name}-${width}-${scheme}.png`), fullPage: true });
      if (width === 1440 || scheme === 'light') {
        const violations = await axe(page);
        check(`${name} at ${width} px (${scheme}): axe-core finds no serious or critical violation`, violations.length === 0, violations.join('; '));
      }
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

// Presses Tab (or Shift+Tab) until the focused element matches `selector`.
async function tabTo(page, selector, back = false, limit = 150) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (await page.evaluate((sel) => !!document.activeElement && document.activeElement.matches(sel), selector)) return true;
  }
  return false;
}

// The deck's repeat button, pressed until it says `state`.
async function repeat(page, state) {
  for (let i = 0; i < 3; i++) {
    const label = await page.getAttribute('#repeat', 'aria-label');
    if (label === `Repeat: ${state}`) return true;
    await page.click('#repeat');
    await page.waitForFunction((was) => document.getElementById('repeat').getAttribute('aria-label') !== was, label);
  }
  return (await page.getAttribute('#repeat', 'aria-label')) === `Repeat: ${state}`;
}

// The consent page: the listener's login, then Allow.
async function consent(page) {
  await page.waitForURL(/\/authorize/);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('button[value="allow"]');
  await page.waitForSelector('#app[data-ready="true"]', { timeout: 15000 });
}

const audio = (page) => page.evaluate(() => {
  const a = document.getElementById('audio');
  return { t: a.currentTime, paused: a.paused, src: a.currentSrc };
});

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox'],
});
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.log('page error:', m.text()); });
  page.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) console.log('answered', r.status(), r.request().method(), r.url().split('?')[0]); });
  page.on('pageerror', (e) => { check('no uncaught script error', false, e.message); });

  // Signed out: the landing page with a sign-in button.
  await page.goto(`${base}/`);
  await page.waitForSelector('#signin', { state: 'visible' });
  await look(page, '01-landing');

  // Sign in through the OAuth consent page.
  await page.click('#signin');
  await consent(page);
  check('signed in: the landing text is gone and the app shows', await page.isHidden('#landing') && await page.isVisible('#deck'), 'still the landing');
  const device = await page.getAttribute('#app', 'data-device');
  const deviceName = await page.getAttribute('#app', 'data-device-name');
  check('the device is named by browser and system', /^(Chrome|Chromium) on Linux$/.test(deviceName), deviceName);
  await ready;
  await spotipySees(`the app's device "${deviceName}"`, { check: 'device', name: deviceName });
  await look(page, '02-home');

  // Search with instant results: typing alone shows them.
  await page.click('#nav a[data-page="search"]');
  await page.waitForSelector('#search-input');
  await page.keyboard.type('dawn', { delay: 40 });
  await page.waitForSelector('#results .track', { timeout: 5000 });
  const first = page.locator('#results .tracks .track').first();
  const firstUri = await first.getAttribute('data-uri');
  const firstName = await first.locator('.name').textContent();
  check('search finds the track by a word of its name', /dawn/i.test(firstName), firstName);
  await look(page, '03-search');

  // Play it in the app: the <audio> element must advance.
  await first.locator('button.play').click();
  let start = null;
  let advanced = false;
  for (let i = 0; i < 100 && !advanced; i++) {
    const a = await audio(page);
    if (!a.paused && a.src.includes('/stream/')) { start = start ?? a.t; advanced = a.t - start >= 0.5; }
    await sleep(100);
  }
  check('the track plays in the app (audio currentTime advances)', advanced, JSON.stringify(await audio(page)));
  await spotipySees('the track playing on the app', { check: 'playing', uri: firstUri, device });
  // The demo's tracks last 16 s and the flow much longer: repeating the
  // track keeps the same one playing through every page that follows.
  check('the deck\'s repeat button cycles to repeating the track', await repeat(page, 'track'), await page.getAttribute('#repeat', 'aria-label'));
  await spotipySees('the track repeated', { check: 'repeat', state: 'track' });
  const mediaTitle = await page.evaluate(() => navigator.mediaSession.metadata && navigator.mediaSession.metadata.title);
  check('the Media Session (lock screen) names the track playing', mediaTitle === firstName, `${mediaTitle} for ${firstName}`);
  const handlers = await page.evaluate(() => document.getElementById('app').dataset.mediaActions || '');
  check('the Media Session has play, pause, next, previous and seek handlers', handlers === 'play,pause,nexttrack,previoustrack,seekto', handlers);

  // Add it to a new playlist, then a second track to the same playlist.
  await first.getByRole('button', { name: /to a playlist/ }).click();
  await page.fill('#new-playlist-name', 'Road trip');
  await page.click('dialog button[type="submit"]');
  await page.waitForSelector('dialog', { state: 'detached' });
  await page.fill('#search-input', 'e');
  await page.waitForFunction(() => document.getElementById('app').dataset.searched === 'e');
  let secondUri = null;
  for (const row of await page.locator('#results .tracks .track').all()) {
    const uri = await row.getAttribute('data-uri');
    if (uri !== firstUri) { secondUri = uri; await row.getByRole('button', { name: /to a playlist/ }).click(); break; }
  }
  await page.getByRole('dialog').getByRole('button', { name: 'Road trip' }).click();
  await page.waitForSelector('dialog', { state: 'detached' });

  // Add the second track to the queue from its row; the deck's queue and
  // spotipy both list it next.
  const secondRow = page.locator(`#results .tracks .track[data-uri="${secondUri}"]`).first();
  const secondName = await secondRow.locator('.name').textContent();
  await secondRow.getByRole('button', { name: /to the queue/ }).click();
  await spotipySees('the track added to the queue', { check: 'queue', uri: secondUri });
  await page.click('#queue-button');
  await page.waitForSelector('dialog');
  const queued = await page.locator('dialog ol').textContent().catch(() => '');
  check('the deck\'s queue lists the track added to it', queued.includes(secondName), queued);
  await page.keyboard.press('Escape');
  await page.waitForSelector('dialog', { state: 'detached' });

  // The playlist page: reorder with the keyboard, then by dragging.
  await page.click('#nav a[data-page="library"]');
  await page.click('.tabs a:has-text("Playlists")');
  await page.click('.tiles a:has-text("Road trip")');
  await page.waitForSelector('#app[data-page="playlist"] .track');
  const playlistId = page.url().split('#/playlist/')[1];
  const order = () => page.locator('.tracks .track').evaluateAll((rows) => rows.map((r) => r.dataset.uri));
  check('the playlist holds both tracks in the order added', JSON.stringify(await order()) === JSON.stringify([firstUri, secondUri]), JSON.stringify(await order()));
  await spotipySees('the new playlist and its items', { check: 'playlist', id: playlistId, uris: [firstUri, secondUri] });
  await page.locator('.tracks .track').nth(1).locator('button.up').focus();
  await page.keyboard.press('Enter');
  await page.waitForFunction((want) => [...document.querySelectorAll('.tracks .track')].map((r) => r.dataset.uri).join() === want, [secondUri, firstUri].join());
  check('the keyboard moved the second item up', true, '');
  await spotipySees('the order the keyboard made', { check: 'playlist', id: playlistId, uris: [secondUri, firstUri] });
  await page.locator('.tracks .track').nth(0).dragTo(page.locator('.tracks .track').nth(1));
  const dragged = await page.waitForFunction((want) => [...document.querySelectorAll('.tracks .track')].map((r) => r.dataset.uri).join() === want,
    [firstUri, secondUri].join(), { timeout: 5000 }).then(() => true, () => false);
  check('dragging the first row below the second reorders', dragged, JSON.stringify(await order()));
  await spotipySees('the order the drag made', { check: 'playlist', id: playlistId, uris: [firstUri, secondUri] });

  // A cover: one over Spotify's 256 KB is refused in the page with its
  // size named; a JPEG drawn by the browser's canvas becomes the cover.
  await page.click('summary:has-text("Edit details")');
  const big = Buffer.alloc(300 * 1024, 7);
  big.set([0xFF, 0xD8, 0xFF]);
  await page.setInputFiles('#cover-file', { name: 'big.jpg', mimeType: 'image/jpeg', buffer: big });
  await page.click('button:has-text("Upload cover")');
  await page.waitForFunction(() => document.getElementById('cover-error').textContent !== '');
  const tooBig = await page.textContent('#cover-error');
  check('a cover over 256 KB is refused with a clear message', /300 KB: a cover may be at most 256 KB/.test(tooBig), tooBig);
  const jpeg = Buffer.from(await page.evaluate(async () => {
    const c = document.createElement('canvas');
    c.width = 300; c.height = 300;
    const g = c.getContext('2d');
    g.fillStyle = '#1d6f5f'; g.fillRect(0, 0, 300, 300);
    g.fillStyle = '#f2c14e'; g.beginPath(); g.arc(150, 150, 90, 0, Math.PI * 2); g.fill();
    const blob = await new Promise((resolve) => c.toBlob(resolve, 'image/jpeg', 0.9));
    let s = '';
    for (const b of new Uint8Array(await blob.arrayBuffer())) s += String.fromCharCode(b);
    return btoa(s);
  }), 'base64');
  await page.setInputFiles('#cover-file', { name: 'cover.jpg', mimeType: 'image/jpeg', buffer: jpeg });
  await page.click('button:has-text("Upload cover")');
  const covered = await page.waitForSelector('.hero img.cover', { timeout: 5000 }).then(() => true, () => false);
  check('the uploaded cover shows on the playlist page', covered, 'no cover image');
  await spotipySees('the uploaded cover, byte for byte', { check: 'cover', id: playlistId, sha256: createHash('sha256').update(jpeg).digest('hex') });
  await look(page, '04-playlist');

  // Follow the first track's artist from its page.
  await page.locator('.tracks .track').first().locator('a[href^="#/artist/"]').first().click();
  await page.waitForSelector('#app[data-page="artist"] #view h1');
  const artistId = page.url().split('#/artist/')[1];
  await page.getByRole('button', { name: 'Follow', pressed: false }).click();
  await page.getByRole('button', { name: 'Follow', pressed: true }).waitFor();
  await spotipySees('the artist followed', { check: 'following', artist: artistId });
  await look(page, '05-artist');

  await page.locator('.tiles a[href^="#/album/"]').first().click();
  await page.waitForSelector('#app[data-page="album"] #view h1');
  await look(page, '06-album');
  await page.click('#nav a[data-page="library"]');
  await page.click('.tabs a:has-text("Artists")');
  await page.waitForSelector(`.tiles a[href="#/artist/${artistId}"]`);
  await look(page, '07-library');

  // The developer page: an app made here works with spotipy; a rotated
  // secret stops the old one working.
  await page.click('#nav a[data-page="developer"]');
  await page.waitForSelector('#app-name');
  await page.fill('#app-name', 'Night radio');
  await page.fill('#app-uris', 'http://127.0.0.1:8765/callback');
  await page.check('input[value="client_credentials"]');
  await page.click('button:has-text("Create app")');
  await page.waitForSelector('#shown-secret');
  const clientId = await page.textContent('#shown-client-id');
  const secret = await page.textContent('#shown-secret');
  check('the developer page shows the new app\'s client id and secret once', /^[0-9a-f]{32}$/.test(clientId) && /^[0-9a-f]{32}$/.test(secret), `${clientId} ${secret}`);
  await look(page, '08-developer');
  await spotipySees('the new app complete the authorization code flow with PKCE', { check: 'pkce_app', client_id: clientId });
  await spotipySees('the new app\'s secret work', { check: 'secret', client_id: clientId, secret, works: true });
  page.once('dialog', (d) => d.accept());
  await page.locator(`li[data-client-id="${clientId}"]`).getByRole('button', { name: 'Rotate secret' }).click();
  await page.waitForFunction((old) => { const s = document.getElementById('shown-secret'); return s && s.textContent !== old; }, secret);
  const rotated = await page.textContent('#shown-secret');
  await spotipySees('the old secret refused after rotating', { check: 'secret', client_id: clientId, secret, works: false });
  await spotipySees('the rotated secret work', { check: 'secret', client_id: clientId, secret: rotated, works: true });

  // Its rate-limit usage counts spotipy's calls with the app's token, and
  // an edit renames it and takes a flow away.
  await page.evaluate(() => window.dispatchEvent(new HashChangeEvent('hashchange')));
  const card = page.locator(`li[data-client-id="${clientId}"]`);
  await page.waitForFunction((id) => / of 600 calls/.test(document.querySelector(`li[data-client-id="${id}"] .rate`)?.textContent || ''),
    clientId, { timeout: 5000 }).catch(() => {});
  const rate = await card.locator('.rate').textContent();
  check('the developer page shows the app\'s rate-limit usage', /^[1-9]\d* of 600 calls in this 30-second window, \d+ s left\.$/.test(rate), rate);
  await card.locator('summary').click();
  await page.fill(`#edit-name-${clientId}`, 'Night radio FM');
  await card.locator('input[value="client_credentials"]').uncheck();
  await card.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForFunction((id) => document.querySelector(`li[data-client-id="${id}"] h3`)?.textContent === 'Night radio FM', clientId);
  check('the edited app shows its new name and flows', (await card.locator('dd').nth(2).textContent()) === 'authorization_code, pkce', await card.locator('dd').nth(2).textContent());
  await spotipySees('the flow taken away refused', { check: 'secret', client_id: clientId, secret: rotated, works: false });
  page.once('dialog', (d) => d.accept());
  await page.locator(`li[data-client-id="${clientId}"]`).getByRole('button', { name: 'Delete' }).click();
  await page.waitForSelector(`li[data-client-id="${clientId}"]`, { state: 'detached' });
  await spotipySees('the deleted app\'s secret refused', { check: 'secret', client_id: clientId, secret: rotated, works: false });

  // Administration (the demo listener is the operator): scan a folder with
  // a file the scan cannot read; the progress ends and the file is named.
  if (process.env.SCAN_DIR) {
    await page.click('#nav a[data-page="admin"]');
    await page.waitForSelector('#scan-dir');
    await page.fill('#scan-dir', process.env.SCAN_DIR);
    await page.click('button:has-text("Scan")');
    const finished = await page.waitForFunction(() => /^Finished/.test(document.getElementById('scan-state')?.textContent || ''), null, { timeout: 20000 }).then(() => true, () => false);
    check('a scan started on the administration page finishes', finished, await page.textContent('#scan-status'));
    const problems = await page.textContent('#scan-problems').catch(() => '');
    check('the administration page names the file the scan could not read', problems.includes('broken.flac'), problems);
    const counts = await page.textContent('#scan-counts');
    check('the scan counts the files it added', /1 added/.test(counts) && /1 not readable/.test(counts), counts);
    check('the listeners table lists the operator', (await page.textContent('#listeners')).includes('Operator'), '');

    // A listener added here signs in with the password shown once; once
    // disabled they cannot; deleted, they are gone.
    await page.fill('#new-username', 'guest');
    await page.click('button:has-text("Add listener")');
    await page.waitForSelector('#new-password');
    const guestPassword = await page.textContent('#new-password');
    check('a new listener\'s password is shown once', guestPassword.length >= 12, guestPassword);
    await spotipySees('the new listener sign in', { check: 'login', username: 'guest', password: guestPassword, works: true });
    await look(page, '09-admin');
    await page.getByRole('button', { name: 'Disable guest' }).click();
    await page.waitForSelector('tr[data-user="guest"] td[data-label="Status"]:has-text("Disabled")');
    await spotipySees('the disabled listener refused at sign-in', { check: 'login', username: 'guest', password: guestPassword, works: false });
    page.once('dialog', (d) => d.accept());
    await page.getByRole('button', { name: 'Delete guest' }).click();
    const deleted = await page.waitForSelector('tr[data-user="guest"]', { state: 'detached', timeout: 5000 }).then(() => true, () => false);
    check('a deleted listener leaves the table', deleted, '');
  }

  // Playback went on through all those pages.
  const later = await audio(page);
  check('playback went on across pages (the same track, repeated)', !later.paused && later.src.includes('/stream/' + firstUri.split(':')[2] + '?'), JSON.stringify(later));
  await spotipySees('the same track still playing on the app', { check: 'playing', uri: firstUri, device });

  // A podcast: save an episode on its show's page, play it a few seconds,
  // pause; the library's Episodes tab lists it with where it was left, and
  // Resume starts there.
  await page.click('#nav a[data-page="search"]');
  await page.fill('#search-input', 'Signal Hour');
  await page.locator('#results .tiles a[href^="#/show/"]').first().click();
  await page.waitForSelector('#app[data-page="show"] .track');
  const episode = page.locator('.tracks .track').first();
  const episodeUri = await episode.getAttribute('data-uri');
  await episode.getByRole('button', { name: /^Save / }).click();
  await episode.getByRole('button', { name: /^Save /, pressed: true }).waitFor();
  await episode.locator('button.play').click();
  let heard = 0;
  for (let i = 0; i < 100 && heard < 3; i++) {
    const a = await audio(page);
    if (!a.paused && await page.evaluate((id) => document.getElementById('audio').dataset.track === id, episodeUri.split(':')[2])) heard = a.t;
    await sleep(100);
  }
  check('the episode plays in the app', heard >= 3, `reached ${heard} s`);
  await page.click('#toggle');
  await page.waitForFunction(() => document.getElementById('audio').paused);
  await sleep(500);
  await look(page, '10-show');
  await page.click('#nav a[data-page="library"]');
  await page.click('.tabs a:has-text("Episodes")');
  const resumeText = await page.locator(`.tracks .track[data-uri="${episodeUri}"] .resume`).textContent({ timeout: 5000 }).catch(() => '');
  check('the saved episode is listed with the time left from its resume point', /^0:1[0-3] left$/.test(resumeText), resumeText);
  await spotipySees('the saved episode and its resume point', { check: 'episode_resume', uri: episodeUri, at_least_ms: 2000 });
  await look(page, '11-episodes');
  await page.locator(`.tracks .track[data-uri="${episodeUri}"]`).getByRole('button', { name: /^Resume / }).click();
  let resumedAt = null;
  for (let i = 0; i < 50 && resumedAt === null; i++) {
    const a = await audio(page);
    if (!a.paused && a.t > 0) resumedAt = a.t;
    await sleep(100);
  }
  check('Resume starts the episode where it was left', resumedAt !== null && resumedAt >= 2, `started at ${resumedAt}`);

  // The keyboard alone: Tab and Enter reach search, Space plays a result,
  // and a playlist is reordered without the mouse.
  await page.evaluate(() => document.getElementById('main').focus());
  check('Shift+Tab reaches Search in the navigation', await tabTo(page, '#nav a[data-page="search"]', true), '');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.activeElement && document.activeElement.id === 'search-input');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('dawn', { delay: 30 });
  await page.waitForFunction(() => document.getElementById('app').dataset.searched === 'dawn');
  check('Tab reaches the first result\'s play button', await tabTo(page, '#results .track button.play'), '');
  const keyUri = await page.evaluate(() => document.activeElement.closest('.track').dataset.uri);
  await page.keyboard.press('Space');
  const keyPlays = await page.waitForFunction((id) => {
    const a = document.getElementById('audio');
    return !a.paused && a.dataset.track === id && a.currentTime > 0.3;
  }, keyUri.split(':')[2], { timeout: 10000 }).then(() => true, () => false);
  check('Space on the play button plays the track', keyPlays, JSON.stringify(await audio(page)));
  await page.evaluate(() => document.getElementById('main').focus());
  check('Shift+Tab reaches Library', await tabTo(page, '#nav a[data-page="library"]', true), '');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#app[data-page="library"]');
  check('Tab reaches the Playlists tab', await tabTo(page, '.tabs a[href="#/library?tab=playlists"]'), '');
  await page.keyboard.press('Enter');
  await page.waitForSelector('.tiles a:has-text("Road trip")');
  check('Tab reaches the playlist', await tabTo(page, `.tiles a[href="#/playlist/${playlistId}"]`), '');
  await page.keyboard.press('Enter');
  await page.waitForSelector('#app[data-page="playlist"] .track');
  const before = await order();
  check('Tab reaches the second row\'s Move up', await tabTo(page, '.tracks .track:nth-child(2) button.up'), '');
  await page.keyboard.press('Enter');
  const keyboardOrder = [before[1], before[0]];
  const reordered = await page.waitForFunction((want) => [...document.querySelectorAll('.tracks .track')].map((r) => r.dataset.uri).join() === want,
    keyboardOrder.join(), { timeout: 5000 }).then(() => true, () => false);
  check('the keyboard alone reordered the playlist', reordered, JSON.stringify(await order()));
  await spotipySees('the order made by the keyboard alone', { check: 'playlist', id: playlistId, uris: keyboardOrder });

  // Another tab is another device: transferring playback to it starts it
  // there and stops the first.
  const second = await context.newPage();
  second.on('pageerror', (e) => { check('no uncaught script error in the second tab', false, e.message); });
  await second.goto(`${base}/`);
  await second.click('#signin');
  await consent(second);
  const secondDevice = await second.getAttribute('#app', 'data-device');
  check('the second tab is a device of its own', secondDevice && secondDevice !== device, secondDevice);
  await second.click('#devices-button');
  await second.locator('#device-list li', { hasText: '(this tab)' }).getByRole('button', { name: 'Play here' }).click();
  const moved = await second.waitForFunction(() => { const a = document.getElementById('audio'); return !a.paused && a.currentTime > 0.3; }, null, { timeout: 10000 })
    .then(() => true, () => false);
  check('transferred playback plays in the second tab', moved, JSON.stringify(await audio(second)));
  const stopped = await page.waitForFunction(() => document.getElementById('audio').paused, null, { timeout: 10000 }).then(() => true, () => false);
  check('the first tab stops when playback moves', stopped, JSON.stringify(await audio(page)));
  await spotipySees('the playback on the second tab', { check: 'playing', uri: keyUri, device: secondDevice });
  await second.close({ runBeforeUnload: true });

  // With no device active (the second tab, which played, is closed), + Queue
  // makes this tab the active device and queues there.
  await spotipySees('the second tab\'s device gone', { check: 'device_gone', device: secondDevice });
  await page.locator(`.tracks .track[data-uri="${firstUri}"]`).getByRole('button', { name: /to the queue/ }).click();
  await spotipySees('+ Queue with no device active make this tab the active device', { check: 'active', device });
  await spotipySees('+ Queue with no device active queue the track there', { check: 'queue', uri: firstUri });

  // A closed tab takes its device with it.
  await page.close({ runBeforeUnload: true });
  await spotipySees('the closed tab\'s device gone', { check: 'device_gone', device });
} catch (e) {
  check('the flow ran to its end', false, e.stack);
} finally {
  await browser.close();
  watcher.stdin.end();
}
console.log(`listener app: ${passed} passed, ${failed} failed; screenshots in ${shots}`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
