// The catalog's listener app in headless Chromium, as the device the spotipy
// run commands: it opens /, signs in through /authorize like a person,
// waits until the page has registered as a device, then watches the page's
// <audio> element: it must play (currentTime advances from a /stream link)
// and later pause (currentTime stands still) as spotipy commands.
//
// Usage: node web_player.mjs BASE_URL USERNAME PASSWORD STATUS_DIR
// Writes STATUS_DIR/ready once the device is registered, runs until
// STATUS_DIR/done appears (or 240 s pass), and exits non-zero unless both
// were seen. Environment: BROWSER_MODULES (folder holding node_modules with
// playwright-core), CHROMIUM (default /usr/bin/chromium).

import { createRequire } from 'node:module';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [base, username, password, statusDir] = process.argv.slice(2);
const modules = join(process.env.BROWSER_MODULES || '.', 'node_modules');
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--autoplay-policy=no-user-gesture-required', '--no-sandbox'],
});
let played = false;
let paused = false;
try {
  const page = await browser.newPage();
  page.on('console', (m) => { if (m.type() === 'error') console.log('page error:', m.text()); });
  await page.goto(`${base}/`);
  await page.click('#signin');
  await page.waitForURL(/\/authorize/);
  await page.fill('#username', username);
  await page.fill('#password', password);
  await page.click('button[value="allow"]');
  await page.waitForSelector('#app[data-device]', { timeout: 15000 });
  const device = await page.getAttribute('#app', 'data-device');
  console.log(`web player: registered as device ${device}`);
  writeFileSync(join(statusDir, 'ready'), device);

  const audio = () => page.evaluate(() => {
    const a = document.getElementById('audio');
    return { t: a.currentTime, paused: a.paused, src: a.currentSrc };
  });
  const deadline = Date.now() + 240000;
  let start = null;
  let still = null;
  while (Date.now() < deadline && !existsSync(join(statusDir, 'done'))) {
    const a = await audio();
    if (!played) {
      if (!a.paused && a.src.includes('/stream/')) {
        start = start ?? a.t;
        if (a.t - start >= 0.5) {
          played = true;
          console.log(`web player: <audio> plays ${a.src.split('?')[0]} (currentTime ${start.toFixed(2)} -> ${a.t.toFixed(2)})`);
        }
      } else {
        start = null;
      }
    } else if (!paused) {
      if (a.paused) {
        still = still ?? { t: a.t, at: Date.now() };
        if (Date.now() - still.at >= 500 && a.t === still.t) {
          paused = true;
          console.log(`web player: <audio> paused at ${a.t.toFixed(2)} s`);
        }
      } else {
        still = null;
      }
    }
    await sleep(100);
  }
} finally {
  await browser.close();
}
console.log(`web player: audio played ${played ? 'yes' : 'NO'}, paused ${paused ? 'yes' : 'NO'}`);
process.exit(played && paused ? 0 : 1);
