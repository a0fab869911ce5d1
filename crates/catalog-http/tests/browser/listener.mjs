// The listener app as a new listener meets it, in headless Chromium: the
// landing page, sign-in through the OAuth consent page, search with
// instant results, a track played in the app (its <audio> must advance),
// the track added to a new playlist, the playlist reordered with the
// keyboard and by dragging, an artist followed, playback going on across
// pages, and the tab closed (its device must go). spotipy runs beside it
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
  await page.waitForURL(/\/authorize/);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('button[value="allow"]');
  await page.waitForSelector('#app[data-ready="true"]', { timeout: 15000 });
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
    await look(page, '09-admin');
  }

  // Playback went on through all those pages.
  const later = await audio(page);
  check('playback went on across pages', !later.paused && later.t > (start ?? 0) + 1, JSON.stringify(later));
  await spotipySees('the same track still playing on the app', { check: 'playing', uri: firstUri, device });

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
