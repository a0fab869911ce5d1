// Lighthouse (npm `lighthouse`, run against Debian's Chromium) on the main
// docs pages: performance, accessibility and best practices must each score
// at least LIGHTHOUSE_MIN (default 95) on the desktop preset and on the
// mobile default. Reports are written to ARTIFACT_DIR/lighthouse-*.json.
//
// Usage: node lighthouse.mjs BASE_URL ARTIFACT_DIR
// Environment: DOCS_MODULES (folder holding node_modules with lighthouse),
// CHROMIUM, GITHUB_DOCS=1 adds GitHub's pages, LIGHTHOUSE_MIN.

import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { writeFileSync } from 'node:fs';

const [base, artifacts] = process.argv.slice(2);
const modules = join(process.env.DOCS_MODULES || '.', 'node_modules');
const lighthouse = (await import(pathToFileURL(join(modules, 'lighthouse/core/index.js')).href)).default;
const desktop = (await import(pathToFileURL(join(modules, 'lighthouse/core/config/desktop-config.js')).href)).default;
const launcher = await import(pathToFileURL(join(modules, 'chrome-launcher/dist/index.js')).href);
const min = Number(process.env.LIGHTHOUSE_MIN || 95);

const label = await (async () => {
  const html = await (await fetch(`${base}/docs/bookshelf`)).text();
  const m = html.match(/href="\/docs\/bookshelf\/([^"/]+)\/op\//);
  return m ? m[1] : '1.0.0';
})();
const pages = [
  ['demo-overview', `${base}/docs/bookshelf`],
  ['demo-operation', `${base}/docs/bookshelf/${label}/op/createBook`],
  ['demo-schema', `${base}/docs/bookshelf/${label}/schemas/Book`],
];
if (process.env.GITHUB_DOCS === '1') {
  pages.push(['github-overview', `${base}/docs/github`]);
  pages.push(['github-operation', `${base}/docs/github/v3/op/get-repos-owner-repo`]);
  pages.push(['github-schema', `${base}/docs/github/v3/schemas/repository`]);
}

// Each page is asked for once first: Lighthouse then scores the page as
// visitors meet it (rendered and kept by the hub), not a debug build's
// first render right after start (bench/docs.sh measures that).
for (const [, url] of pages) await (await fetch(url)).text();

let failed = 0;
const chrome = await launcher.launch({
  chromePath: process.env.CHROMIUM || '/usr/bin/chromium',
  chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  for (const [name, url] of pages) {
    for (const [preset, config] of [['desktop', desktop], ['mobile', undefined]]) {
      const result = await lighthouse(url, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility', 'best-practices'],
      }, config);
      const lhr = result.lhr;
      writeFileSync(join(artifacts, `lighthouse-${name}-${preset}.json`), result.report);
      const scores = Object.fromEntries(Object.entries(lhr.categories).map(([k, c]) => [k, Math.round((c.score || 0) * 100)]));
      const low = Object.entries(scores).filter(([, s]) => s < min);
      if (lhr.runtimeError) {
        failed++;
        console.log(`FAIL lighthouse ${name} ${preset}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      } else if (low.length) {
        failed++;
        const audits = Object.values(lhr.audits).filter((a) => a.score !== null && a.score < 0.9 && a.scoreDisplayMode !== 'informative').map((a) => a.id).slice(0, 8);
        console.log(`FAIL lighthouse ${name} ${preset}: ${JSON.stringify(scores)} (below ${min}; weak audits: ${audits.join(', ')})`);
      } else {
        console.log(`ok   lighthouse ${name} ${preset}: ${JSON.stringify(scores)}`);
      }
    }
  }
} finally {
  await chrome.kill();
}
console.log(failed ? `lighthouse: ${failed} page(s) below ${min}` : `lighthouse: every page at ${min} or more`);
process.exit(failed ? 1 : 0);
