// Browser checks of the hosted docs, against a running `svc serve hub` with
// its demo project `bookshelf` (public, OpenAPI 3.1) and a GraphQL project
// `books`:
//
// 1. The docs read without JavaScript: overview, navigation, an operation.
// 2. Try-It on an operation page, sent to the hosted mock, shows the answer.
// 3. The GraphQL reference, and its Try-It against the mock.
// 4. A plain page on another origin embeds /widget.js, adds an element after
//    load, fires `service:rescan`, and uses the widget inside its Shadow DOM.
// 6. (run before 5) An API without CORS: the direct request fails and the
//    hub's relay sends it instead (HUB_TOKEN sets the project's base URL).
// 5. With GITHUB_DOCS=1 (project `github`, version `v3`): GitHub's REST
//    description opens, navigates, searches, and Try-It reaches the mock.
//
// Usage: node run.mjs BASE_URL ARTIFACT_DIR (screenshots are written there)
// Environment: BROWSER_MODULES (folder holding node_modules with
// playwright-core), CHROMIUM (default /usr/bin/chromium).

import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { join } from 'node:path';

const [base, artifacts] = process.argv.slice(2);
const modules = join(process.env.BROWSER_MODULES || '.', 'node_modules');
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); } else { failed++; console.log(`FAIL ${name}: ${detail}`); }
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  // 1. Without JavaScript.
  const plain = await (await browser.newContext({ javaScriptEnabled: false })).newPage();
  await plain.goto(`${base}/docs/bookshelf`);
  const title = await plain.textContent('h1');
  check('overview has a title', title && title.trim().length > 0, title);
  const links = await plain.locator('.sidebar a[href*="/op/"]').count();
  check('navigation lists operations', links > 3, links);
  await plain.screenshot({ path: join(artifacts, 'overview-nojs.png'), fullPage: true });
  await plain.goto(`${base}/docs/bookshelf/${await defaultLabel(plain)}/op/listBooks`);
  check('operation page without JS shows parameters and samples',
    (await plain.locator('#responses').count()) === 1 && (await plain.locator('.samples .sample').count()) === 7, '');
  check('Try-It stays hidden without JS', !(await plain.locator('form[data-tryit]').isVisible()), '');

  // 2. Try-It against the mock.
  const page = await (await browser.newContext()).newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  await page.goto(plain.url());
  const form = page.locator('form[data-tryit]');
  await form.waitFor({ state: 'visible' });
  const mock = await form.locator('select[name=target] option', { hasText: 'Mock server' }).getAttribute('value');
  await form.locator('select[name=target]').selectOption(mock);
  await form.locator('button[type=submit]').click();
  await page.waitForFunction(() => /^\d{3} /.test(document.querySelector('.tryit-response .status')?.textContent || ''), null, { timeout: 15000 });
  const status = await page.textContent('.tryit-response .status');
  check('Try-It against the mock shows 200', status.startsWith('200'), status);
  check('the response body is shown', ((await page.textContent('.tryit-response')) || '').includes('{'), '');
  check('samples are tabs', (await page.locator('.samples .tabbar input[type=radio]').count()) === 7 && (await page.locator('.samples .tabpanel:visible').count()) === 1, '');
  await page.screenshot({ path: join(artifacts, 'operation-tryit.png'), fullPage: true });
  check('no script errors on the docs pages', errors.length === 0, errors.join('; '));

  // 3. GraphQL.
  await page.goto(`${base}/docs/books`);
  check('GraphQL queries are listed', (await page.locator('#query-book').count()) === 1, '');
  const gql = page.locator('#query-books form[data-tryit]');
  await gql.waitFor({ state: 'visible' });
  await gql.locator('select[name=target]').selectOption({ label: 'Mock server' });
  await gql.locator('button[type=submit]').click();
  await page.waitForFunction(() => /^\d{3} /.test(document.querySelector('#query-books .status')?.textContent || ''), null, { timeout: 15000 });
  const gqlBody = await page.textContent('#query-books .tryit-response');
  check('GraphQL Try-It answers data', gqlBody.includes('"books"'), gqlBody.slice(0, 200));
  await page.screenshot({ path: join(artifacts, 'graphql.png'), fullPage: true });

  // 4. The widget on another origin.
  const host = createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8');
    res.end(`<!doctype html><html><head><style>button{background:red!important}</style>
<script src="${base}/widget.js" defer></script></head><body><h1>Partner page</h1>
<script>
window.addEventListener('load', () => {
  const el = document.createElement('div');
  el.setAttribute('data-service-embed', '');
  el.setAttribute('data-project', 'bookshelf');
  el.setAttribute('data-operation', 'listBooks');
  el.id = 'later';
  document.body.appendChild(el);
  document.dispatchEvent(new Event('service:rescan'));
});
</script></body></html>`);
  });
  await new Promise((resolve) => host.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${host.address().port}`;
  check('the partner page is another origin', origin !== new URL(base).origin, origin);
  const partner = await (await browser.newContext()).newPage();
  await partner.goto(origin);
  const send = partner.locator('#later button');
  await send.waitFor({ state: 'visible', timeout: 15000 });
  const colour = await send.evaluate((b) => getComputedStyle(b).backgroundColor);
  check('host page styles do not reach the widget', colour !== 'rgb(255, 0, 0)', colour);
  await send.click();
  await partner.waitForFunction(() => {
    const root = document.querySelector('#later')?.shadowRoot;
    return root && /^\d{3} /.test(root.querySelector('[data-status]')?.textContent || '');
  }, null, { timeout: 15000 });
  const widgetStatus = await partner.evaluate(() => document.querySelector('#later').shadowRoot.querySelector('[data-status]').textContent);
  check('the widget sends to the mock and shows 200', widgetStatus.startsWith('200'), widgetStatus);
  await partner.screenshot({ path: join(artifacts, 'widget.png'), fullPage: true });
  host.close();

  // 6. An API without CORS: the browser's direct request fails, the panel
  //    offers the hub's relay, and the relayed answer is shown.
  const api = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ relayed: true, path: req.url }));
  });
  await new Promise((resolve) => api.listen(0, '127.0.0.1', resolve));
  const apiBase = `http://127.0.0.1:${api.address().port}/v1`;
  const patched = await fetch(`${base}/api/v1/projects/bookshelf`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${process.env.HUB_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ base_url: apiBase }),
  });
  check('the project points at the local API', patched.ok, patched.status);
  const relayPage = await (await browser.newContext()).newPage();
  await relayPage.goto(`${base}/docs/bookshelf/${await defaultLabel(plain)}/op/listBooks`);
  const relayForm = relayPage.locator('form[data-tryit]');
  await relayForm.waitFor({ state: 'visible' });
  await relayForm.locator('select[name=target]').selectOption(apiBase);
  check('the relay switch shows for the API target', await relayForm.locator('label.relay').isVisible(), '');
  await relayForm.locator('button[type=submit]').click();
  const retry = relayForm.locator('button.relay-retry');
  await retry.waitFor({ state: 'visible', timeout: 15000 });
  check('the blocked request offers the relay', true, '');
  await retry.click();
  await relayPage.waitForFunction(() => (document.querySelector('.tryit-response .status')?.textContent || '').includes('through the hub'), null, { timeout: 15000 });
  const relayed = (await relayPage.textContent('.tryit-response')) || '';
  check('the relayed answer is shown', relayed.startsWith('200') && relayed.includes('"relayed": true') && relayed.includes('/v1/books'), relayed.slice(0, 300));
  await relayPage.screenshot({ path: join(artifacts, 'tryit-relay.png'), fullPage: true });
  api.close();

  // 5. GitHub's REST description (when the run script found it): the whole
  //    API's docs open, navigate, search, and Try-It reaches the mock.
  if (process.env.GITHUB_DOCS === '1') {
    const gh = await (await browser.newContext()).newPage();
    const ghErrors = [];
    gh.on('pageerror', (e) => ghErrors.push(String(e)));
    let started = Date.now();
    const overview = await gh.goto(`${base}/docs/github`, { timeout: 120000 });
    check('GitHub overview answers 200', overview.status() === 200, overview.status());
    const ghTitle = (await gh.textContent('h1')) || '';
    check('GitHub overview has its title', ghTitle.includes('GitHub'), ghTitle);
    // Above 150 operations the sidebar lists tags; the overview links
    // operations of small tags and the pages of large ones.
    const ghTags = await gh.locator('.sidebar a[href*="/tags/"]').count();
    check('GitHub navigation lists its tags', ghTags > 20, ghTags);
    const ghOps = await gh.locator('a[href*="/op/"]').count();
    check('GitHub overview links operations', ghOps > 50, ghOps);
    console.log(`     GitHub overview loaded in ${Date.now() - started} ms (${ghTags} tags, ${ghOps} operation links)`);
    await gh.screenshot({ path: join(artifacts, 'github-overview.png') });
    const opHref = await gh.locator('a[href*="/op/"]').first().getAttribute('href');
    started = Date.now();
    await gh.goto(new URL(opHref, base).href, { timeout: 60000 });
    console.log(`     GitHub operation page loaded in ${Date.now() - started} ms`);
    const ghForm = gh.locator('form[data-tryit]').first();
    await ghForm.waitFor({ state: 'visible' });
    const ghMock = await ghForm.locator('select[name=target] option', { hasText: 'Mock server' }).getAttribute('value');
    await ghForm.locator('select[name=target]').selectOption(ghMock);
    await ghForm.locator('button[type=submit]').click();
    await gh.waitForFunction(() => /^\d{3} /.test(document.querySelector('.tryit-response .status')?.textContent || ''), null, { timeout: 30000 });
    const ghStatus = (await gh.textContent('.tryit-response .status')) || '';
    check('GitHub Try-It against the mock answers 2xx', /^2\d\d /.test(ghStatus), ghStatus);
    await gh.screenshot({ path: join(artifacts, 'github-operation.png'), fullPage: false });
    const searchUrl = `${base}/docs/github/v3/search?q=repository`;
    await gh.goto(searchUrl, { timeout: 60000 });
    const hits = await gh.locator('ol.hits li a').count();
    check('GitHub docs search finds repository pages', hits > 3, hits);
    check('no script errors on the GitHub pages', ghErrors.length === 0, ghErrors.join('; '));
  }
} finally {
  await browser.close();
}

async function defaultLabel(page) {
  const summary = await page.textContent('.versions summary');
  return encodeURIComponent(summary.replace(' (default)', '').trim());
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
