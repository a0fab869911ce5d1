// Driven by bench/docs-peers.sh: opens the same named operation in our docs,
// Scalar's standalone reference and Redoc's standalone build (served from a
// local static server with the same description) in headless Chromium and
// prints, side by side, the time until the operation's heading is visible
// and the JavaScript heap then; then the weights of our pages as the hub
// sends them (raw, gzip, brotli).
//
// Usage: node docs-peers.mjs HUB_BASE SPEC_FILE   (WEIGH_ALL=0 skips
// requesting every page of the document)

import { createRequire } from 'node:module';
import { createServer, get as httpGet } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const [hub, specFile] = process.argv.slice(2);
const modules = join(process.env.DOCS_MODULES || '.', 'node_modules');
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');
const runs = Number(process.env.RUNS || 3);
const heading = 'Get a repository';

const files = {
  '/spec.json': ['application/json', readFileSync(specFile)],
  '/scalar.js': ['text/javascript', readFileSync(join(modules, '@scalar/api-reference/dist/browser/standalone.js'))],
  '/redoc.js': ['text/javascript', readFileSync(join(modules, 'redoc/bundles/redoc.standalone.js'))],
  '/scalar.html': ['text/html', `<!doctype html><html><head><meta charset="utf-8"><title>Scalar</title></head><body><div id="app"></div>
<script src="/scalar.js"></script><script>Scalar.createApiReference('#app', { url: '/spec.json' })</script></body></html>`],
  '/redoc.html': ['text/html', `<!doctype html><html><head><meta charset="utf-8"><title>Redoc</title></head><body>
<redoc spec-url="/spec.json"></redoc><script src="/redoc.js"></script></body></html>`],
};
const server = createServer((req, res) => {
  const file = files[new URL(req.url, 'http://x').pathname];
  if (!file) { res.statusCode = 404; res.end(); return; }
  res.setHeader('content-type', file[0]);
  res.end(file[1]);
});
await new Promise((r) => server.listen(0, '127.0.0.1', r));
const peers = `http://127.0.0.1:${server.address().port}`;

const tools = [
  ['ours (svc hosted docs)', `${hub}/docs/github/bench/op/get-repos-owner-repo`],
  ['Scalar standalone', `${peers}/scalar.html#tag/repos/GET/repos/{owner}/{repo}`],
  ['Redoc standalone', `${peers}/redoc.html#tag/repos/operation/repos/get`],
];

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
const rows = [];
for (const [name, url] of tools) {
  const times = [];
  let heap = null;
  let error = '';
  for (let i = 0; i < runs; i++) {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    try {
      await page.goto(url, { waitUntil: 'commit', timeout: 300000 });
      // Checked on every animation frame in the page itself, and timed by
      // the page's own clock from the start of its navigation: a locator's
      // wait polls at 100 and then 500 ms steps, which would round every
      // tool's time up to its next poll. The heading's own text counts
      // (Redoc puts an unnamed anchor link inside its headings).
      const shown = await page.waitForFunction((text) => {
        for (const h of document.querySelectorAll('h1, h2, h3')) {
          if (h.textContent.trim() !== text) continue;
          const box = h.getBoundingClientRect();
          if (box.width > 0 && box.height > 0 && box.top < innerHeight && getComputedStyle(h).visibility !== 'hidden') {
            return performance.now();
          }
        }
        return false;
      }, heading, { polling: 'raf', timeout: 300000 });
      times.push(Math.round(await shown.jsonValue()));
      const metrics = (await cdp.send('Performance.getMetrics')).metrics;
      heap = metrics.find((m) => m.name === 'JSHeapUsedSize')?.value ?? heap;
    } catch (e) {
      error = String(e).split('\n')[0];
    }
    await context.close();
  }
  times.sort((a, b) => a - b);
  const median = times.length ? times[Math.floor(times.length / 2)] : null;
  rows.push({ name, median, min: times[0] ?? null, heap, error });
}
await browser.close();
server.close();

console.log(`\n== time to show "${heading}" (GET /repos/{owner}/{repo}) of ${specFile.split('/').pop()} in Chromium, median of ${runs}`);
console.log('tool                       median      min   JS heap then');
for (const r of rows) {
  const t = (v) => (v === null ? '      -' : `${(v / 1000).toFixed(2).padStart(6)} s`);
  const heap = r.heap === null ? '-' : `${(r.heap / 1048576).toFixed(1)} MB`;
  console.log(`${r.name.padEnd(24)} ${t(r.median)} ${t(r.min)}   ${heap}${r.error ? `  (${r.error})` : ''}`);
}

console.log('\n== our page weights: raw, and as the hub sends them with Accept-Encoding gzip and br');
// The bytes on the wire for one Accept-Encoding (fetch would decompress).
const sent = (path, encoding) => new Promise((resolve, reject) => {
  httpGet(`${hub}${path}`, { headers: { 'accept-encoding': encoding } }, (res) => {
    let bytes = 0;
    res.on('data', (chunk) => { bytes += chunk.length; });
    res.on('end', () => resolve([bytes, res.headers['content-encoding'] || 'identity']));
  }).on('error', reject);
});
const weigh = async (path) => {
  const [raw] = await sent(path, 'identity');
  const [gzip, gzipAs] = await sent(path, 'gzip');
  const [br, brAs] = await sent(path, 'br');
  const kb = (n) => `${(n / 1024).toFixed(1).padStart(7)} KB`;
  const note = gzipAs === 'gzip' && brAs === 'br' ? '' : `  (sent as ${gzipAs}, ${brAs})`;
  return `${kb(raw)} /${kb(gzip)} /${kb(br)}  ${path}${note}`;
};
const html = await (await fetch(`${hub}/docs/github/bench/op/get-repos-owner-repo`)).text();
const assets = [...html.matchAll(/(?:href|src)="(\/_docs\/[^"]+)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
for (const path of ['/docs/github', '/docs/github/bench/op/get-repos-owner-repo', '/docs/github/bench/op/post-user-repos', '/docs/github/bench/schemas/repository', ...new Set(assets)]) {
  console.log(await weigh(path));
}
const index = html.match(/data-index="([^"]+)"/);
if (index && process.env.WEIGH_ALL !== '0') {
  const url = index[1].replace(/&amp;/g, '&');
  console.log(`${await weigh(url)}  (quick-search index, fetched when the search opens)`);
  // Every page of the document: the heaviest operation and schema pages,
  // and how long the hub took for each (first render, then kept).
  const entries = await (await fetch(`${hub}${url}`)).json();
  const heaviest = {};
  const times = [];
  for (const [, , , target] of entries) {
    const kind = target.split('/')[0];
    const started = performance.now();
    const body = await (await fetch(`${hub}/docs/github/bench/${target}`)).text();
    times.push(performance.now() - started);
    const bytes = Buffer.byteLength(body);
    if (!heaviest[kind] || heaviest[kind][0] < bytes) heaviest[kind] = [bytes, target];
  }
  times.sort((a, b) => a - b);
  console.log(`\n== all ${entries.length} pages of the index, first request each: median ${times[Math.floor(times.length / 2)].toFixed(1)} ms, slowest ${times[times.length - 1].toFixed(1)} ms`);
  for (const [kind, [bytes, target]] of Object.entries(heaviest)) {
    console.log(`heaviest ${kind.padEnd(8)} ${(bytes / 1024).toFixed(1).padStart(7)} KB  ${target}${bytes > 300 * 1024 ? '  OVER 300 KB' : ''}`);
  }
}
