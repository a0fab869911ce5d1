// The look and the main flows of the hosted docs in headless Chromium, at
// 1440, 1024 and 375 px wide in light and dark: the overview, an operation
// with a request body, a schema, the quick search open, and Try-It with a
// response, for the demo project and (GITHUB_DOCS=1) GitHub's REST
// description. Each view is screenshotted, checked for horizontal scrolling
// and scanned with axe-core (no serious or critical violation allowed).
// Then Try-It with credentials: an OAuth 2 authorization code flow with
// PKCE in a pop-up against a local test authorization server, and the
// authenticated request sent to a local API through the hub's relay and to
// the mock.
//
// Usage: node design.mjs BASE_URL ARTIFACT_DIR
// Environment: DOCS_MODULES (folder holding node_modules with
// playwright-core and axe-core), CHROMIUM, HUB_TOKEN (to create the
// `secure` project), GITHUB_DOCS=1.

import { createRequire } from 'node:module';
import { createServer } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { readFileSync, mkdirSync } from 'node:fs';

const [base, artifacts] = process.argv.slice(2);
const modules = join(process.env.DOCS_MODULES || '.', 'node_modules');
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
mkdirSync(artifacts, { recursive: true });

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); } else { failed++; console.log(`FAIL ${name}: ${detail}`); }
}

const widths = [1440, 1024, 375];
const schemes = ['light', 'dark'];

async function axe(page) {
  await page.evaluate(axeSource + ';0');
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

async function overflow(page) {
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
}

// One view at every width and colour scheme: `prepare` brings the page to
// the state to capture (open the search, send a request, ...).
async function views(browser, name, url, prepare) {
  for (const scheme of schemes) {
    for (const width of widths) {
      const context = await browser.newContext({ viewport: { width, height: width === 375 ? 812 : 900 }, colorScheme: scheme });
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text()); });
      await page.goto(url, { timeout: 120000 });
      if (prepare) await prepare(page, width);
      const extra = await overflow(page);
      check(`${name} ${width}px ${scheme}: no horizontal scrolling`, extra <= 0, `${extra}px wider than the viewport`);
      const violations = await axe(page);
      check(`${name} ${width}px ${scheme}: axe finds no serious or critical violation`, violations.length === 0, violations.join('; '));
      check(`${name} ${width}px ${scheme}: no script errors`, errors.length === 0, errors.join('; '));
      await page.screenshot({ path: join(artifacts, `${name}-${width}-${scheme}.png`), fullPage: false });
      await context.close();
    }
  }
}

async function openSearch(page, query, expect) {
  await page.keyboard.press('/');
  await page.locator('.qs input').waitFor({ state: 'visible' });
  await page.keyboard.type(query);
  await page.waitForFunction((e) => [...document.querySelectorAll('.qs-list .qs-title')].some((t) => t.textContent.toLowerCase().includes(e)), expect, { timeout: 15000 });
}

async function sendToMock(page) {
  const form = page.locator('form[data-tryit]');
  await form.waitFor({ state: 'visible' });
  const mock = await form.locator('select[name=target] option', { hasText: 'Mock server' }).getAttribute('value');
  await form.locator('select[name=target]').selectOption(mock);
  await form.locator('button[type=submit]').click();
  await page.waitForFunction(() => /^\d{3}/.test(document.querySelector('.tryit-response .status')?.textContent || ''), null, { timeout: 30000 });
  await page.locator('.tryit-response').scrollIntoViewIfNeeded();
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const label = await (async () => {
    const page = await browser.newPage();
    await page.goto(`${base}/docs/bookshelf`);
    const summary = await page.textContent('.versions summary');
    await page.close();
    return encodeURIComponent(summary.replace(' (default)', '').trim());
  })();
  const demo = `${base}/docs/bookshelf/${label}`;

  // The three panes: at 1440 px the samples sit beside the prose.
  {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${demo}/op/createBook`);
    const main = await page.locator('.op-main').boundingBox();
    const aside = await page.locator('.op-aside').boundingBox();
    check('three panes at 1440 px: the sample pane is right of the prose', aside && main && aside.x >= main.x + main.width - 1 && aside.y < main.y + 200, JSON.stringify({ main, aside }));
    const tabs = await page.locator('.samples .tabbar label').allTextContents();
    check('request samples in seven languages', tabs.join(',') === 'curl,JavaScript,Python,Go,Ruby,PHP,Java', tabs.join(','));
    await page.locator('.samples .tabbar label', { hasText: 'Go' }).click();
    check('one sample shows at a time', (await page.locator('.samples .tabpanel:visible').count()) === 1 && (await page.locator('.samples .tabpanel:visible').getAttribute('data-tab')) === 'Go', '');
    await page.goto(`${demo}/op/listBooks`);
    const chosen = await page.locator('.samples .tabbar input:checked').getAttribute('value');
    check('the chosen sample language is remembered across pages', chosen === 'Go', chosen);
    const highlighted = await page.locator('.samples pre code span.k').count();
    check('samples are highlighted on the server', highlighted > 0, highlighted);
    const examples = await page.locator('.resp-examples .tabbar label').allTextContents();
    check('response examples per status', examples.length >= 1 && examples.every((e) => /^\d{3}|default/.test(e)), examples.join(','));
    await page.keyboard.press('Control+K');
    await page.locator('.qs input').waitFor({ state: 'visible' });
    await page.keyboard.type('loan');
    await page.waitForFunction(() => document.querySelectorAll('.qs-list [role=option]').length > 0, null, { timeout: 10000 });
    const marks = await page.locator('.qs-list mark').count();
    check('quick search highlights matches', marks > 0, marks);
    // Whole words only, never filler; hits labelled by kind; and a verb
    // no operation performs is said so.
    await page.locator('.qs input').fill('how do I delete a loan');
    await page.waitForFunction(() => document.querySelectorAll('.qs-list [role=option]').length > 0, null, { timeout: 10000 });
    await page.waitForTimeout(600);
    const marked = await page.locator('.qs-list mark').allTextContents();
    check('quick search marks whole words, never filler', marked.length > 0 && marked.every((m) => m.length >= 2 && !['how', 'do', 'i', 'a'].includes(m.toLowerCase())), marked.join(','));
    const kinds = await page.locator('.qs-list .qs-kind').allTextContents();
    check('quick search labels hits by kind, not TEXT', kinds.length > 0 && !kinds.some((k) => k.toLowerCase() === 'text'), kinds.join(','));
    check('quick search says when no operation deletes what was asked', (await page.locator('.qs-list .qs-note').count()) === 1, await page.textContent('.qs-list'));
    // One engine: once the server answers, its order leads the list. The
    // built-in sentence model re-ranks once the document's sections are
    // encoded (in the background, from its first search), so wait for the
    // server's answer to settle, then ask the page again.
    const serverFirst = (q) => page.evaluate(async (q) => {
      const url = document.querySelector('[data-search]').getAttribute('data-search');
      const found = await (await fetch(url + '?format=json&q=' + encodeURIComponent(q))).json();
      return found.hits.length ? found.hits[0].title : null;
    }, q);
    let lead = await serverFirst('how do I delete a loan');
    for (let i = 0; i < 30; i++) {
      await page.waitForTimeout(1000);
      const again = await serverFirst('how do I delete a loan');
      if (again === lead) break;
      lead = again;
    }
    await page.locator('.qs input').fill('');
    await page.locator('.qs input').fill('how do I delete a loan');
    await page.waitForFunction((l) => { const t = document.querySelector('.qs-list .qs-title'); return t && t.textContent === l; }, lead, { timeout: 5000 }).catch(() => {});
    const first = await page.locator('.qs-list .qs-title').first().textContent();
    check('quick search leads with the server\'s ranking', lead !== null && first === lead, `${first} / ${lead}`);
    await page.locator('.qs input').fill('loan');
    await page.waitForFunction(() => document.querySelectorAll('.qs-list [role=option]').length > 0, null, { timeout: 10000 });
    await page.keyboard.press('ArrowDown');
    const active = await page.locator('.qs-list [aria-selected=true]').count();
    check('quick search moves with the arrow keys', active === 1, active);
    const href = await page.locator('.qs-list [aria-selected=true]').getAttribute('href');
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => u.pathname === new URL(href, base).pathname, { timeout: 10000 });
    check('Enter opens the chosen result', true, '');
    await page.close();
  }

  // Parameter checks and copy as curl.
  {
    const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    await page.goto(`${demo}/op/createBook`);
    const form = page.locator('form[data-tryit]');
    await form.waitFor({ state: 'visible' });
    await form.locator('[name=body]').fill('{"title": ');
    await form.locator('button[type=submit]').click();
    const bodyError = (await page.textContent('#t-body-e')) || '';
    check('an invalid JSON body is refused before sending', bodyError.includes('Not valid JSON'), bodyError);
    await form.locator('[name=body]').fill('{"title": "Dune"}');
    const copied = await page.evaluate(() => window.ServiceDocs.curl(document.querySelector('form[data-tryit]')));
    check('copy as curl gives the request', copied.startsWith("curl -X POST '") && copied.includes('"title": "Dune"') && copied.includes("-H 'Content-Type: application/json'"), copied);
    await form.locator('[data-copy-curl]').click();
    await page.waitForFunction(() => /Copied|Copy failed/.test(document.querySelector('[data-copy-curl]').textContent), null, { timeout: 5000 });
    check('the copy button says it copied', (await form.locator('[data-copy-curl]').textContent()) === 'Copied', await form.locator('[data-copy-curl]').textContent());
    await context.close();
  }

  await visualFaults(browser, demo);

  await views(browser, 'demo-overview', `${base}/docs/bookshelf`);
  await views(browser, 'demo-operation', `${demo}/op/createBook`);
  await views(browser, 'demo-schema', `${demo}/schemas/Book`);
  await views(browser, 'demo-search', `${demo}/op/listBooks`, (page) => openSearch(page, 'book', 'book'));
  await views(browser, 'demo-tryit', `${demo}/op/getBook`, sendToMock);

  // OAuth 2 authorization code with PKCE, then the authenticated request
  // through the relay to a local API, and to the mock.
  await oauthFlow(browser);

  // OAI's callback example under a custom theme: the callback's request in
  // place, highlighting coloured from the theme's primary colour.
  await callbacksAndTheme(browser);

  // The docs assistant, offline (no model configured): an AI answer in the
  // quick search, then a conversation in the chat drawer, streamed.
  await assistant(browser, demo);
  await views(browser, 'demo-chat', `${demo}/op/listBooks`, (page) => askInDrawer(page, 'how do I add a book?'));

  if (process.env.GITHUB_DOCS === '1') {
    const gh = `${base}/docs/github/v3`;
    await views(browser, 'github-overview', `${base}/docs/github`);
    await views(browser, 'github-operation', `${gh}/op/post-user-repos`);
    await views(browser, 'github-schema', `${gh}/schemas/repository`);
    await views(browser, 'github-search', `${gh}/op/get-repos-owner-repo`, (page) => openSearch(page, 'get a repo', 'get a repository'));
    await views(browser, 'github-tryit', `${gh}/op/get-repos-owner-repo`, sendToMock);
  }
} finally {
  await browser.close();
}

async function askInDrawer(page, question) {
  if (!(await page.locator('.chat').isVisible())) await page.locator('.chat-open').click();
  await page.locator('.chat textarea').waitFor({ state: 'visible' });
  await page.locator('.chat textarea').focus();
  const before = await page.locator('.chat-assistant').count();
  await page.keyboard.type(question);
  await page.keyboard.press('Enter');
  await page.waitForFunction((n) => {
    const answers = document.querySelectorAll('.chat-assistant');
    return answers.length > n && !answers[answers.length - 1].hasAttribute('aria-busy');
  }, before, { timeout: 20000 });
}

async function assistant(browser, demo) {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  await page.goto(`${demo}/op/listBooks`);
  await page.keyboard.press('/');
  await page.locator('.qs input').waitFor({ state: 'visible' });
  await page.keyboard.type('add a new book');
  await page.waitForFunction(() => [...document.querySelectorAll('.qs-list [role=option]')].some((o) => o.textContent.includes('Ask AI')), null, { timeout: 10000 });
  await page.keyboard.press('ArrowUp');
  const chosen = await page.locator('.qs-list [aria-selected=true]').textContent();
  check('the quick search offers an AI answer as its last result', chosen.includes('Ask AI: add a new book'), chosen);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('.qs-answer .sources a'), null, { timeout: 20000 });
  const answer = await page.locator('.qs-answer').textContent();
  const cited = await page.locator('.qs-answer .sources a').first().getAttribute('href');
  check('the AI answer names the operation and cites its page', /Use POST \/\S*books/.test(answer) && /\/op\//.test(cited), `${answer} | ${cited}`);
  await page.keyboard.press('Escape');

  const opener = page.locator('.chat-open');
  check('the chat drawer opener is shown on a Pro project', await opener.isVisible(), '');
  await askInDrawer(page, 'how do I add a book?');
  const first = await page.locator('.chat-assistant').last().textContent();
  check('the drawer streams an answer naming the operation', /POST \/\S*books/.test(first), first);
  const link = await page.locator('.chat-assistant').last().locator('a.cite').first().getAttribute('href');
  check('the answer links its citation to the docs page', /\/op\//.test(link || ''), link);
  const code = await page.locator('.chat-assistant pre.code').count();
  check('the request sample is a code block with a copy button', code > 0 && (await page.locator('.chat-assistant .copy').count()) > 0, code);
  await askInDrawer(page, 'and how do I list them?');
  check('a follow-up continues the conversation', (await page.locator('.chat-user').count()) === 2, await page.locator('.chat-user').count());
  // The conversation survives a page change in the same tab.
  await page.goto(`${demo}/op/createBook`);
  await page.locator('.chat-open').click();
  const kept = await page.locator('.chat-msg').count();
  check('the drawer keeps the conversation across pages', kept === 4, kept);
  await page.keyboard.press('Escape');
  check('Escape closes the drawer and gives focus back', await page.locator('.chat').isHidden() && (await page.evaluate(() => document.activeElement.className)).includes('chat-open'), '');
  await page.screenshot({ path: join(artifacts, 'assistant-answer-1440-light.png') });
  await page.close();
}

/** The visual faults a new user found (issue 24), each checked where it
 *  showed, at 1440 and 375 px in light and dark, with a screenshot. */
async function visualFaults(browser, demo) {
  // Path parameters without examples, and a private project's docs.
  const spec = {
    openapi: '3.0.3',
    info: { title: 'Repos', version: '1' },
    servers: [{ url: 'https://api.repos.example' }],
    paths: { '/repos/{owner}/{repo}': { get: {
      operationId: 'getRepo',
      parameters: [
        { name: 'owner', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'repo', in: 'path', required: true, schema: { type: 'string' } },
      ],
      responses: {
        200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { full_name: { type: 'string' } } } } } },
        404: { description: 'missing', content: { 'application/json': { schema: { type: 'object', required: ['message'], properties: { message: { type: 'string' } } } } } },
      },
    } } },
  };
  const headers = { authorization: `Bearer ${process.env.HUB_TOKEN}`, 'content-type': 'application/json' };
  await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Repos', slug: 'repos', is_public: true }) });
  await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Hidden', slug: 'hidden', is_public: false }) });
  for (const slug of ['repos', 'hidden']) {
    const pushed = await fetch(`${base}/api/v1/projects/${slug}/versions?label=1&makeDefault=true`, { method: 'POST', headers, body: JSON.stringify(spec) });
    check(`the path parameter example is pushed to ${slug}`, pushed.ok, pushed.status);
  }
  for (const scheme of schemes) {
    for (const width of [1440, 375]) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
      const page = await context.newPage();
      await page.goto(`${demo}/op/createBook`);
      await page.locator('.code-wrap .copy').first().waitFor({ state: 'attached' });
      // No line of code runs under its Copy button.
      const overlaps = await page.evaluate(() => [...document.querySelectorAll('.code-wrap')].filter((wrap) => {
        const button = wrap.querySelector('.copy');
        const pre = wrap.querySelector('pre');
        if (!button || !pre || !button.offsetParent) return false;
        const b = button.getBoundingClientRect();
        const firstLine = pre.getBoundingClientRect().top + parseFloat(getComputedStyle(pre).paddingTop);
        return firstLine < b.bottom;
      }).length);
      check(`${width}px ${scheme}: no code line runs under its Copy button`, overlaps === 0, `${overlaps} blocks overlap`);
      // The response disclosure markers sit inside their cards.
      const markers = await page.evaluate(() => [...document.querySelectorAll('details.response > summary')].map((s) => getComputedStyle(s).listStylePosition));
      check(`${width}px ${scheme}: response markers inside their cards`, markers.length > 0 && markers.every((m) => m === 'inside'), markers.join(','));
      // Cards below the fold are laid out when they near the viewport
      // (content-visibility): scroll each into view, then take the page.
      await page.locator('.code-wrap').first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(artifacts, `fault-copy-${width}-${scheme}.png`) });
      await page.locator('details.response[open]').first().evaluate((e) => e.scrollIntoView({ block: 'center' }));
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(artifacts, `fault-response-${width}-${scheme}.png`) });

      await page.goto(`${base}/docs/repos/1/op/getRepo`);
      const values = await page.evaluate(() => ['owner', 'repo'].map((n) => (document.querySelector(`[data-name="${n}"]`) || {}).value));
      check(`${width}px ${scheme}: path parameters start with values named like them`, values.every((v) => v && v !== 'string'), values.join(','));
      const example = await page.textContent('.resp-examples') || '';
      check(`${width}px ${scheme}: an error example does not say everything works`, !example.includes('working as expected'), example.slice(0, 200));
      await page.locator('.tryit-panel').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(artifacts, `fault-tryit-${width}-${scheme}.png`) });

      // A private project's docs (read by its owner) say why there is no mock.
      await page.goto(`${base}/docs/_signin?next=/docs/hidden`);
      await page.fill('input[name=token]', process.env.HUB_TOKEN);
      await Promise.all([page.waitForNavigation(), page.press('input[name=token]', 'Enter')]);
      await page.goto(`${base}/docs/hidden/1/op/getRepo`);
      const note = await page.textContent('.tryit-note') || '';
      check(`${width}px ${scheme}: a private project's Try-It says the mock serves public projects`, note.includes('public projects') && note.includes('svc mock'), note);
      const options = await page.locator('#t-target option').allTextContents();
      check(`${width}px ${scheme}: no mock target is offered for a private project`, !options.some((o) => o.includes('Mock')), options.join(','));
      await page.locator('.tryit-panel').evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await page.waitForTimeout(100);
      await page.screenshot({ path: join(artifacts, `fault-private-tryit-${width}-${scheme}.png`) });
      await context.close();
    }
  }
}

async function callbacksAndTheme(browser) {
  const spec = {
    openapi: '3.0.0',
    info: { title: 'Callback Example', version: '1.0.0' },
    paths: { '/streams': { post: {
      operationId: 'subscribe',
      summary: 'Subscribe to a stream',
      description: 'subscribes a client to receive out-of-band data',
      parameters: [{ name: 'callbackUrl', in: 'query', required: true, description: 'the location where data will be sent', schema: { type: 'string', format: 'uri', example: 'https://tonys-server.com' } }],
      responses: { 201: { description: 'subscription successfully created', content: { 'application/json': { schema: { required: ['subscriptionId'], properties: { subscriptionId: { type: 'string', example: '2531329f-fb09-4ef7-887e-84e648214436' } } } } } } },
      callbacks: { onData: { '{$request.query.callbackUrl}/data': { post: {
        requestBody: { description: 'subscription payload', content: { 'application/json': { schema: { type: 'object', properties: { timestamp: { type: 'string', format: 'date-time' }, userData: { type: 'string' } } } } } },
        responses: { 202: { description: 'Your server implementation should return this HTTP status code if the data was received successfully' }, 204: { description: 'Your server should return this HTTP status code if no longer interested in further updates' } },
      } } } },
    } } },
  };
  const headers = { authorization: `Bearer ${process.env.HUB_TOKEN}`, 'content-type': 'application/json' };
  await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Streams', slug: 'streams', is_public: true }) });
  const pushed = await fetch(`${base}/api/v1/projects/streams/versions?label=1&makeDefault=true`, { method: 'POST', headers, body: JSON.stringify(spec) });
  check('the callback example is pushed', pushed.ok, pushed.status);
  const themed = await fetch(`${base}/api/v1/projects/streams/theme`, { method: 'PUT', headers, body: JSON.stringify({ light: { primary: '#b4005a' }, dark: { primary: '#ff9ecf' }, radius: null, lock: null }) });
  check('the theme is saved', themed.ok, themed.status);
  const url = `${base}/docs/streams/1/op/subscribe`;
  {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(url);
    const summary = await page.locator('.callback-op summary').first().textContent();
    check('the callback shows its method and expression', /POST\s+\{\$request\.query\.callbackUrl\}\/data/.test(summary), summary);
    const keyword = await page.evaluate(() => getComputedStyle(document.documentElement).getPropertyValue('--hl-k').trim());
    check('the theme colours the keywords', keyword === '#b4005a', keyword);
    await page.close();
  }
  await views(browser, 'theme-callbacks', url, (page) => page.locator('.callback-op').first().evaluate((e) => e.scrollIntoView({ block: 'start' })));
}

async function oauthFlow(browser) {
  const codes = new Map();
  const tokens = new Set();
  const auth = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    res.setHeader('access-control-allow-origin', '*');
    res.setHeader('access-control-allow-headers', '*');
    if (req.method === 'OPTIONS') { res.end(); return; }
    if (url.pathname === '/authorize') {
      // Approves at once, remembering the challenge for the exchange.
      const code = randomBytes(12).toString('hex');
      codes.set(code, { challenge: url.searchParams.get('code_challenge'), method: url.searchParams.get('code_challenge_method'), client: url.searchParams.get('client_id') });
      const back = new URL(url.searchParams.get('redirect_uri'));
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state'));
      res.writeHead(302, { location: back.href });
      res.end();
      return;
    }
    if (url.pathname === '/token' && req.method === 'POST') {
      let body = '';
      req.on('data', (c) => { body += c; });
      req.on('end', () => {
        const form = new URLSearchParams(body);
        const grant = codes.get(form.get('code'));
        const verifier = form.get('code_verifier') || '';
        const expected = grant && (grant.method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier);
        res.setHeader('content-type', 'application/json');
        if (!grant || expected !== grant.challenge || grant.client !== form.get('client_id')) {
          res.statusCode = 400;
          res.end(JSON.stringify({ error: 'invalid_grant' }));
          return;
        }
        codes.delete(form.get('code'));
        const token = `tok_${randomBytes(8).toString('hex')}`;
        tokens.add(token);
        res.end(JSON.stringify({ access_token: token, token_type: 'Bearer', expires_in: 3600 }));
      });
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  // An API without CORS that wants the token.
  const api = createServer((req, res) => {
    const token = (req.headers.authorization || '').replace(/^Bearer /, '');
    res.setHeader('content-type', 'application/json');
    if (!tokens.has(token)) { res.statusCode = 401; res.end(JSON.stringify({ error: 'unauthorized' })); return; }
    res.end(JSON.stringify({ id: 'acct_1', email: 'reader@example.com', path: req.url }));
  });
  await new Promise((r) => auth.listen(0, '127.0.0.1', r));
  await new Promise((r) => api.listen(0, '127.0.0.1', r));
  const authBase = `http://127.0.0.1:${auth.address().port}`;
  const apiBase = `http://127.0.0.1:${api.address().port}/v1`;
  const spec = {
    openapi: '3.1.0',
    info: { title: 'Accounts', version: '1' },
    servers: [{ url: apiBase }],
    components: {
      securitySchemes: {
        login: { type: 'oauth2', flows: { authorizationCode: { authorizationUrl: `${authBase}/authorize`, tokenUrl: `${authBase}/token`, scopes: { read: 'read the account' } } } },
        key: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        basicAuth: { type: 'http', scheme: 'basic' },
      },
    },
    security: [{ login: ['read'] }, { key: [] }, { basicAuth: [] }],
    paths: { '/me': { get: { operationId: 'me', summary: 'The signed-in account', responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string' }, email: { type: 'string', format: 'email' } } } } } } } } } },
  };
  const headers = { authorization: `Bearer ${process.env.HUB_TOKEN}`, 'content-type': 'application/json' };
  await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: 'Accounts', slug: 'secure', is_public: true }) });
  const pushed = await fetch(`${base}/api/v1/projects/secure/versions?label=1&makeDefault=true`, { method: 'POST', headers, body: JSON.stringify(spec) });
  check('the secured test description is pushed', pushed.ok, pushed.status);

  const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${base}/docs/secure/1/op/me`);
  const form = page.locator('form[data-tryit]');
  await form.waitFor({ state: 'visible' });
  const fields = await form.locator('.cred').evaluateAll((cs) => cs.map((c) => c.getAttribute('data-auth')));
  check('Try-It has a field per security scheme', fields.join(',') === 'oauth2,apikey,basic', fields.join(','));
  await form.locator('.flow [name=client_id]').fill('docs-test');
  const [popup] = await Promise.all([page.waitForEvent('popup'), form.locator('[data-oauth]').click()]);
  await popup.waitForEvent('close', { timeout: 15000 }).catch(() => {});
  await page.waitForFunction(() => (document.querySelector('.cred[data-auth=oauth2] [name=secret]')?.value || '').startsWith('tok_'), null, { timeout: 15000 });
  check('the PKCE pop-up flow fills the access token', true, '');
  await form.locator('select[name=target]').selectOption(apiBase);
  await form.locator('input[name=relay]').check();
  await form.locator('button[type=submit]').click();
  await page.waitForFunction(() => /through the hub/.test(document.querySelector('.tryit-response .status')?.textContent || ''), null, { timeout: 20000 });
  const relayed = (await page.textContent('.tryit-response')) || '';
  check('the authenticated request reaches the local API through the relay', relayed.startsWith('200') && relayed.includes('reader@example.com'), relayed.slice(0, 300));
  await page.screenshot({ path: join(artifacts, 'secure-oauth-relay.png') });
  const mock = await form.locator('select[name=target] option', { hasText: 'Mock server' }).getAttribute('value');
  await form.locator('select[name=target]').selectOption(mock);
  await form.locator('button[type=submit]').click();
  await page.waitForFunction(() => /^\d{3} /.test(document.querySelector('.tryit-response .status')?.textContent || '') && !/through the hub/.test(document.querySelector('.tryit-response .status')?.textContent || ''), null, { timeout: 20000 });
  const mocked = (await page.textContent('.tryit-response')) || '';
  check('the same request reaches the mock', mocked.startsWith('200') && mocked.includes('"email"'), mocked.slice(0, 300));
  await context.close();
  auth.close();
  api.close();
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
