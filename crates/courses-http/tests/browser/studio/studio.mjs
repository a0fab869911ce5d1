// The studio as a new author meets it, in headless Chromium: the welcome
// page, sign-up with the keyboard alone and the address confirmed by its
// mailed link, a course with three screens and a
// question, the search, publishing, the learner preview, learners imported
// from CSV, certificates and themes explained on Sandbox, a webhook whose
// secret is shown once and whose test message reaches a local receiver and
// shows in its log; then the operator raises the workspace to Scale with
// `svc courses workspace set-plan`: a font uploaded (Lato, WOFF), a theme
// with it, a certificate template previewed as a PDF, both chosen for the
// course, the themed preview, the title translated side by side, a draft
// generated from a Markdown file, a signed link for a learner who completes the
// course and gets a certificate PDF that `pdftotext` reads back in the
// theme's font; back to Sandbox, SCORM 1.2 and 2004 downloads; a media
// upload, the settings page with the workspace id, an invitation whose
// mailed link a second person opens to join as a viewer, who sees no
// controls, then resets a forgotten password by its mailed link. Every
// page is scanned with axe-core (no serious or critical violation),
// checked for sideways scrolling at 375 px, and photographed at 1440 and
// 375 px, light and dark.
//
// Usage: node studio.mjs BASE_URL ARTIFACT_DIR MAIL_DIR
// Environment: STUDIO_MODULES (node_modules with playwright-core, axe-core
// and @fontsource/lato), CHROMIUM, SVC_BIN and SVC_DATA_DIR (the binary and
// data directory of the server, for `svc courses workspace set-plan`).

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readFileSync, readdirSync, mkdirSync, existsSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';

const [base, artifacts, mailDir] = process.argv.slice(2);
const require = createRequire(join(process.env.STUDIO_MODULES || '.', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const shots = join(artifacts, 'studio');
mkdirSync(shots, { recursive: true });

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); } else { failed++; console.log(`FAIL ${name}: ${detail}`); }
}

async function axe(page) {
  await page.evaluate(axeSource + ';0');
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
}

/** Screenshots at 1440 and 375 px, light and dark; axe in both schemes; no sideways scrolling at 375. */
async function look(page, name) {
  for (const scheme of ['light', 'dark']) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const width of [1440, 375]) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: join(shots, `${name}-${width}-${scheme}.png`), fullPage: true });
      if (width === 375) {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        check(`${name} (${scheme}): readable at 375 px`, overflow <= 0, `${overflow}px too wide`);
      }
    }
    const violations = await axe(page);
    check(`${name} (${scheme}): axe-core finds no serious or critical violation`, violations.length === 0, violations.join('; '));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1440, height: 900 });
}

/** Moves focus with Tab until `selector` has it (at most 60 presses). */
async function tabTo(page, selector) {
  for (let i = 0; i < 60; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector)) return true;
  }
  return false;
}

/** Types into fields reached with the keyboard only. */
async function typeInto(page, selector, text) {
  check(`focus reaches ${selector} with Tab`, await tabTo(page, selector), 'never focused');
  await page.keyboard.type(text);
}

/** The operator's command: the workspace's plan, as `svc courses workspace set-plan` sets it. */
function setPlan(workspace, plan) {
  const out = execFileSync(process.env.SVC_BIN, ['--json', '--data-dir', process.env.SVC_DATA_DIR, 'courses', 'workspace', 'set-plan', '--workspace', workspace, '--plan', plan], { encoding: 'utf8' });
  check(`svc courses workspace set-plan ${plan}`, out.includes(plan), out);
}

/** The text of a PDF, as pdftotext reads it. */
function pdfText(bytes, name) {
  const file = join(shots, name);
  writeFileSync(file, bytes);
  return execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
}

/** A webhook receiver on loopback: answers 204 and keeps what it got. */
const received = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => { received.push({ headers: req.headers, body }); res.writeHead(204); res.end(); });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hooks/courses`;

function newestMail() {
  if (!existsSync(mailDir)) return '';
  const files = readdirSync(mailDir).filter((f) => f.endsWith('.txt')).sort();
  return files.length ? readFileSync(join(mailDir, files[files.length - 1]), 'utf8') : '';
}

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, acceptDownloads: true });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`); });
  const external = [];
  page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) external.push(r.url()); });

  await page.goto(base + '/');
  check('signed out, / says what the service is', (await page.textContent('h1')) === 'svc courses', await page.textContent('h1'));
  await look(page, '01-welcome');

  // Sign-up with the keyboard alone.
  await page.goto(base + '/signup');
  await look(page, '02-signup');
  await typeInto(page, '#f-workspace_name', 'Acme Academy');
  await typeInto(page, '#f-display_name', 'Ada Lovelace');
  await typeInto(page, '#f-email', 'ada@example.com');
  await typeInto(page, '#f-password', 'correct horse battery staple');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  check('sign-up asks to confirm the address', (await page.textContent('h1')) === 'Check your mail', await page.textContent('main'));
  await look(page, '02b-check-mail');
  const verifyMail = newestMail();
  const verifyLink = (verifyMail.match(/https?:\/\/\S+\/verify\?token=\S+/) || [''])[0];
  check('the confirmation link is mailed', verifyLink.length > 0, verifyMail);
  await page.goto(verifyLink);
  await look(page, '02c-confirm-address');
  check('focus reaches the confirm button with Tab', await tabTo(page, 'main form button[type=submit]'), 'never focused');
  await Promise.all([page.waitForURL(base + '/'), page.keyboard.press('Enter')]);
  check('confirming lands on the course list', page.url() === base + '/', page.url());
  check('the welcome flash is shown', (await page.textContent('.flash') || '').includes('workspace is ready'), await page.content());
  await look(page, '03-courses-empty');

  // A course, by keyboard.
  await typeInto(page, '#f-title', 'Fire safety');
  await Promise.all([page.waitForURL(/\/courses\/crs_/), page.keyboard.press('Enter')]);
  check('the course page opens', page.url().includes('/courses/crs_'), page.url());
  const coursePath = new URL(page.url()).pathname;
  for (const [title, text] of [['Welcome', 'Two minutes to learn the basics.'], ['Extinguishers', 'Foam for oil, water for paper.'], ['Leaving', 'Use the stairs, never the lifts.']]) {
    await page.fill('#f-title', title);
    await page.fill('#f-text', text);
    await Promise.all([page.waitForNavigation(), page.click('form[action$="/screens"] button[type=submit]')]);
  }
  const screens = await page.locator('ul.plain > li.card').count();
  check('three screens are listed', screens === 3, `${screens}`);

  // A scored question on the second screen, and the third screen moved up with the keyboard.
  // The kind's own page; its preview is the learner player, updated as the author types.
  await page.selectOption('#f-screen', { index: 1 });
  await page.selectOption('#f-type', 'multiple_choice');
  await Promise.all([page.waitForURL(/\/blocks\/new\?/), page.click('form[action$="/blocks/new"] button[type=submit]')]);
  await page.fill('#f-block_text', 'Which extinguisher for an oil fire?');
  await page.fill('#f-options', 'Water\nFoam');
  await page.fill('#f-correct', '2');
  const live = page.frameLocator('#live-preview');
  let typed = false;
  for (let i = 0; i < 40 && !typed; i++) {
    typed = (await live.locator('body').textContent().catch(() => '')).includes('Which extinguisher for an oil fire?');
    if (!typed) await page.waitForTimeout(100);
  }
  check('the preview shows the question as it is typed, before saving', typed, await live.locator('body').textContent().catch(() => ''));
  await look(page, '04a-block-live-preview');
  await Promise.all([page.waitForNavigation(), page.click('form[action$="/blocks"] button[type=submit]')]);
  check('the question is listed', (await page.content()).includes('Which extinguisher for an oil fire?'), 'missing');
  await page.focus('button[aria-label="Move screen 3 up"]');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  const order = await page.locator('ul.plain > li.card h3').allTextContents();
  check('Up with the keyboard reorders the screens', order[1] === '2. Leaving', order.join(' | '));
  // Dragging, the enhancement: the first screen dropped below the last.
  await Promise.all([page.waitForNavigation(), page.dragAndDrop('ul.plain > li.card:nth-child(1) h3', 'ul.plain > li.card:nth-child(3) > .actions', { targetPosition: { x: 2, y: 2 } })]);
  const dragged = await page.locator('ul.plain > li.card h3').allTextContents();
  check('dragging a screen reorders the screens', dragged[2] === '3. Welcome', dragged.join(' | '));
  await look(page, '04-course-draft');

  // Publishing with the keyboard, from the top of the page.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  check('focus reaches Publish with Tab', await tabTo(page, 'form[action$="/status"] button'), 'never focused');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  check('publishing shows the badge', (await page.textContent('.head .badge')) === 'published', await page.textContent('.head'));
  await look(page, '05-course-published');

  // The learner preview, and a signed link for one learner.
  const preview = await context.newPage();
  await preview.goto(base + '/v1/embed/' + coursePath.split('/').pop());
  check('the learner preview plays the course', (await preview.content()).includes('Fire safety'), 'no title');
  // The signed link minted with the keyboard.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await typeInto(page, '#f-learner', 'emp-42');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  const embed = (await page.textContent('#embed-link')).trim();
  check('the embed link names the learner', embed.includes('learner=emp-42') && embed.includes('signature='), embed);
  await look(page, '05b-embed-link');
  await preview.goto(embed);
  check('the signed link plays the course for the learner', (await preview.content()).includes('Fire safety'), 'no title');
  await preview.screenshot({ path: join(shots, '05c-learner-player-1440-light.png'), fullPage: true });
  await preview.close();

  // Search.
  await page.goto(base + '/?q=fire');
  check('search finds the course', (await page.locator('table.stack tbody tr').count()) === 1, 'not listed');
  await look(page, '06-courses-search');

  // Learners from a CSV file: previewed, then imported.
  await page.goto(base + '/learners');
  await page.setInputFiles('#f-file', { name: 'learners.csv', mimeType: 'text/csv', buffer: Buffer.from('externalId,name,email\nemp-1,Grace Hopper,grace@example.com\nemp-2,Alan Turing,alan@example.com\n') });
  await Promise.all([page.waitForNavigation(), page.click('form[action^="/learners/preview"] button[type=submit]')]);
  check('the preview lists the rows', (await page.content()).includes('2 learners are ready to import'), 'no preview');
  await look(page, '06b-learners-preview');
  await Promise.all([page.waitForNavigation(), page.click('form[action="/learners/import"] button[type=submit]')]);
  check('the import lists the learners', (await page.content()).includes('Grace Hopper'), 'not listed');
  await look(page, '06c-learners');

  await page.goto(base + '/themes');
  check('themes explain their plan on Sandbox', (await page.content()).includes('Themes are on the Scale plan and up'), 'no note');
  await look(page, '06d-themes-sandbox');


  await page.goto(base + '/certificates');
  check('certificate templates explain their plan on Sandbox', (await page.content()).includes('Certificate templates are on the Scale plan and up'), 'no note');
  await look(page, '06f-certificates-sandbox');

  // A webhook: its secret shown once, a test message delivered and logged.
  await page.goto(base + '/webhooks');
  await look(page, '07a-webhooks-empty');
  await typeInto(page, '#f-url', receiverUrl);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  const secret = ((await page.textContent('#secret-value')) || '').trim();
  check('the new webhook\'s secret is shown once', secret.startsWith('whsec_'), secret);
  await look(page, '07b-webhook-secret');
  await page.reload();
  check('the secret is not shown again', !(await page.content()).includes(secret), 'shown again');
  await Promise.all([page.waitForNavigation(), page.click('table.stack a[href^="/webhooks/"]')]);
  await page.focus('form[action$="/test"] button');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  let delivered = false;
  for (let i = 0; i < 40 && !delivered; i++) {
    await page.waitForTimeout(250);
    await page.reload();
    delivered = (await page.locator('#deliveries .badge.ok').count()) > 0;
  }
  check('the test message reaches the receiver', received.some((r) => JSON.parse(r.body).type === 'webhook.test' && r.headers['webhook-signature']), JSON.stringify(received));
  check('the log shows the test message delivered', delivered && (await page.content()).includes('HTTP 204'), await page.textContent('main'));
  await look(page, '07c-webhook-log');

  // The operator raises the workspace to Scale: themes and certificate templates.
  await page.goto(base + '/settings');
  const wsId = (await page.textContent('#ws-id')).trim();
  setPlan(wsId, 'scale');
  await page.goto(base + '/media');
  const lato = readFileSync(join(process.env.STUDIO_MODULES, 'node_modules/@fontsource/lato/files/lato-latin-400-normal.woff'));
  await page.setInputFiles('#f-file', { name: 'Lato.woff', mimeType: 'font/woff', buffer: lato });
  await Promise.all([page.waitForNavigation(), page.click('form[action^="/media"] button[type=submit]')]);
  check('the font is uploaded', (await page.content()).includes('Lato.woff'), 'not listed');
  await page.goto(base + '/themes');
  await page.fill('#f-name', 'Brand');
  await page.fill('#f-accent', '#7a1f5c');
  await page.selectOption('#f-font', { label: 'Lato.woff' });
  await Promise.all([page.waitForNavigation(), page.click('form[action="/themes"] button[type=submit]')]);
  check('the theme is listed with its font', (await page.content()).includes('Lato.woff'), await page.textContent('main'));
  await look(page, '08a-themes-scale');

  await page.goto(base + '/certificates');
  await page.fill('#f-name', 'Award');
  await page.fill('#f-title', 'Award for {{course}}');
  await Promise.all([page.waitForURL(/\/certificates\/[a-z]+_/), page.click('form[action="/certificates"] button[type=submit]:not([formaction])')]);
  check('the template editor opens', (await page.textContent('h1')).includes('Award'), await page.textContent('h1'));
  await look(page, '08b-certificate-editor');
  const courseId = coursePath.split('/').pop();
  const csrf = await page.inputValue('form[method=post] input[name=csrf_token]');
  const previewPdf = await page.request.post(base + '/certificates/preview', { form: { csrf_token: csrf, name: 'Award', title: 'Award for {{course}}', body: '', course: courseId } });
  check('the preview is a PDF', previewPdf.headers()['content-type'] === 'application/pdf', JSON.stringify(previewPdf.headers()));
  const previewText = pdfText(await previewPdf.body(), 'certificate-preview.pdf');
  check('pdftotext reads the preview in the theme\'s font', previewText.includes('Award for Fire safety') && previewText.includes('Ada Lovelace'), previewText);

  // Both chosen in the course's settings; the preview is themed.
  await page.goto(base + coursePath);
  await page.selectOption('#f-theme', { label: 'Brand' });
  await page.selectOption('#f-certificate', { label: 'Award' });
  await Promise.all([page.waitForNavigation(), page.click(`form[action="${coursePath}"] button[type=submit]`)]);
  check('the course keeps its theme and template', (await page.inputValue('#f-theme')) !== '' && (await page.inputValue('#f-certificate')) !== '', 'not chosen');
  const frame = page.frameLocator('iframe[src$="/preview"]');
  let themed = false;
  for (let i = 0; i < 40 && !themed; i++) {
    themed = await frame.locator('body').evaluate(() => document.fonts.check('16px course-font') && [...document.fonts].some((f) => f.family.replace(/"/g, '') === 'course-font' && f.status === 'loaded')).catch(() => false);
    if (!themed) await page.waitForTimeout(100);
  }
  check('the preview loads the theme\'s font', themed, 'course-font not loaded');
  await look(page, '08c-course-themed');

  // The course's texts translated side by side, played by the preview.
  await page.goto(base + coursePath + '/translations');
  await page.fill('#f-locale', 'fr');
  await Promise.all([page.waitForNavigation(), page.click('form[method=get] button[type=submit]')]);
  await page.fill('input[name="t:title"]', 'Sécurité incendie');
  await Promise.all([page.waitForNavigation(), page.click('#sheet ~ button[type=submit], form[method=post][action$="/translations"] button[type=submit]')]);
  check('the translation is saved', (await page.content()).includes('1 of') && (await page.inputValue('input[name="t:title"]')) === 'Sécurité incendie', await page.textContent('main'));
  await look(page, '08e-translations');
  const frenchPreview = await page.request.get(base + coursePath + '/preview?lang=fr');
  check('the preview plays the translation', (await frenchPreview.text()).includes('Sécurité incendie'), 'not translated');

  // A draft generated from a prompt and a Markdown source file, by the built-in writer.
  await page.goto(base + '/generate');
  await page.setInputFiles('#f-file', { name: 'forklifts.md', mimeType: 'text/markdown', buffer: Buffer.from('# Brakes\n\nOperators test the brakes before each shift.\n\n# Loads\n\nA load is carried low and tilted back.\n') });
  await Promise.all([page.waitForNavigation(), page.click('form[action^="/generate/source"] button[type=submit]')]);
  check('the source file fills the source text', (await page.inputValue('#f-source_text')).includes('Operators test the brakes'), await page.textContent('main'));
  await page.fill('#f-prompt', 'Forklift safety for new operators');
  await look(page, '08f-generate');
  await Promise.all([page.waitForURL(/\/courses\/crs_/), page.click('form[action="/generate"] button[type=submit]')]);
  check('the draft says which generator wrote it', ((await page.textContent('#generated-by')) || '').includes('built-in offline writer'), await page.textContent('main'));
  await look(page, '08g-generated-course');

  // A learner with a name completes the course and gets the certificate.
  await page.goto(base + coursePath);
  await page.focus('#f-learner');
  await page.keyboard.type('emp-1');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  const learnerLink = (await page.textContent('#embed-link')).trim();
  const learner = await context.newPage();
  await learner.goto(learnerLink);
  // Through the screens; on the question, the second option (Foam) is the right one.
  for (let i = 0; i < 10; i++) {
    if (await learner.locator('input[type=radio]').count()) await learner.locator('input[type=radio]').nth(1).check();
    if (await learner.locator('#finish').count()) { await learner.click('#finish'); break; }
    await learner.click('#continue');
  }
  await learner.waitForSelector('#certificate', { timeout: 10000 });
  await look(learner, '08d-learner-completed');
  const certHref = await learner.getAttribute('#certificate', 'href');
  const certPdf = await learner.request.get(new URL(certHref, learnerLink).href);
  const certText = pdfText(await certPdf.body(), 'certificate.pdf');
  check('the learner\'s certificate reads back with their name and the template', certText.includes('Grace Hopper') && certText.includes('Award for Fire safety'), certText);
  const fonts = execFileSync('pdffonts', [join(shots, 'certificate.pdf')], { encoding: 'utf8' });
  check('the certificate embeds the theme\'s font', /Lato/.test(fonts) && /CID TrueType/.test(fonts), fonts);
  await learner.close();
  await page.goto(base + '/learners');
  check('the issued certificate is listed for the author', ((await page.textContent('#certificates')) || '').includes('Grace Hopper'), await page.textContent('main'));
  const listed = await page.request.get(base + (await page.getAttribute('#certificates a[href$=".pdf"]', 'href')));
  check('the author opens the same certificate', pdfText(await listed.body(), 'certificate-studio.pdf').includes('Award for Fire safety'), 'not the certificate');
  await look(page, '08h-learners-certificates');

  // Back to Sandbox: the studio's SCORM export stays on every plan.
  setPlan(wsId, 'sandbox');
  await page.goto(base + coursePath);
  // SCORM downloads on Sandbox.
  for (const version of ['1.2', '2004']) {
    const [download] = await Promise.all([page.waitForEvent('download'), page.click(`a[href$="scorm?version=${version}"]`)]);
    const name = download.suggestedFilename();
    check(`SCORM ${version} downloads on Sandbox`, name.endsWith(`-scorm${version.replace('.', '')}.zip`), name);
  }

  // Media: an image uploaded, typed by its bytes, listed with its address and served sandboxed.
  await page.goto(base + '/media');
  const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
  await page.setInputFiles('#f-file', { name: 'exit-sign.png', mimeType: 'image/png', buffer: png });
  await Promise.all([page.waitForNavigation(), page.click('form[action^="/media"] button[type=submit]')]);
  check('the upload is listed', (await page.content()).includes('exit-sign.png'), 'not listed');
  const mediaUrl = (await page.locator('code[id^="url-med_"]').first().textContent()).trim();
  const served = await page.request.get(mediaUrl);
  check('the upload is served typed by its bytes, sandboxed', served.headers()['content-type'] === 'image/png' && (served.headers()['content-security-policy'] || '').startsWith('sandbox'), JSON.stringify(served.headers()));
  await look(page, '06e-media');
  // The upload chosen in an image block's form.
  await page.goto(base + coursePath);
  await page.selectOption('#f-screen', { index: 0 });
  await page.selectOption('#f-type', 'image');
  await Promise.all([page.waitForURL(/\/blocks\/new\?/), page.click('form[action$="/blocks/new"] button[type=submit]')]);
  await page.selectOption('#f-media', { label: 'exit-sign.png' });
  await page.fill('#f-alt', 'The exit sign');
  await look(page, '06g-image-block-upload');
  await Promise.all([page.waitForNavigation(), page.click('form[action$="/blocks"] button[type=submit]')]);
  check('the image block is listed', (await page.content()).includes('The exit sign'), await page.textContent('main'));
  let shown = false;
  for (let i = 0; i < 40 && !shown; i++) {
    shown = await page.frameLocator('iframe[src$="/preview"]').locator('img[src*="/v1/embed/media/med_"]').count().catch(() => 0) > 0;
    if (!shown) await page.waitForTimeout(100);
  }
  check('the preview shows the uploaded image', shown, 'no image from the upload');

  // Settings: the workspace id and plan; an invitation.
  await page.goto(base + '/settings');
  const workspaceId = (await page.textContent('#ws-id')).trim();
  check('settings show the workspace id', workspaceId.startsWith('ws_'), workspaceId);
  await page.fill('#f-email', 'vera@example.com');
  await page.selectOption('#f-role', 'viewer');
  await Promise.all([page.waitForNavigation(), page.click('form[action="/settings/invitations"] button[type=submit]')]);
  await look(page, '07-settings-invited');
  const mail = newestMail();
  const link = (mail.match(/https?:\/\/\S+\/invitations\/\S+/) || [''])[0];
  check('the invitation is mailed', link.length > 0, mail);

  // The invited person joins and sees no controls.
  const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const vera = await other.newPage();
  await vera.goto(link);
  await look(vera, '08-invitation');
  await vera.fill('#f-display_name', 'Vera');
  await vera.fill('#f-password', 'a different long passphrase');
  await Promise.all([vera.waitForURL(base + '/'), vera.click('main form button[type=submit]')]);
  check('the viewer sees the course', (await vera.content()).includes('Fire safety'), await vera.content());
  check('the viewer has no New course form', (await vera.locator('form[action="/courses"]').count()) === 0, 'form shown');
  await look(vera, '09-viewer-courses');
  await other.close();

  // A forgotten password: the link on the sign-in page, a mailed
  // single-use link, a new password, then sign-in with it.
  const forgot = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const vera2 = await forgot.newPage();
  await vera2.goto(base + '/signin');
  await Promise.all([vera2.waitForURL(base + '/reset'), vera2.click('a[href="/reset"]')]);
  await look(vera2, '10-reset');
  await vera2.fill('#f-email', 'vera@example.com');
  await Promise.all([vera2.waitForNavigation(), vera2.click('main form button[type=submit]')]);
  check('the reset answers "Check your mail"', (await vera2.content()).includes('Check your mail'), await vera2.content());
  await look(vera2, '11-reset-check-mail');
  const resetMail = newestMail();
  const resetLink = (resetMail.match(/https?:\/\/\S+\/reset\/new\?token=\S+/) || [''])[0];
  check('the reset link is mailed', resetLink.length > 0, resetMail);
  await vera2.goto(resetLink);
  await look(vera2, '12-reset-new');
  await vera2.fill('#f-password', 'yet another long passphrase');
  await Promise.all([vera2.waitForURL(base + '/signin'), vera2.click('main form button[type=submit]')]);
  check('the new password is saved', (await vera2.content()).includes('Your password is saved'), await vera2.content());
  await vera2.fill('#f-email', 'vera@example.com');
  await vera2.fill('#f-password', 'yet another long passphrase');
  await Promise.all([vera2.waitForURL(base + '/'), vera2.click('main form button[type=submit]')]);
  check('the new password signs in', (await vera2.content()).includes('Fire safety'), await vera2.content());
  await forgot.close();

  // Ada is invited into a second workspace, Bob's: the header's switcher
  // moves her between the two, with the keyboard.
  const bobs = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const bob = await bobs.newPage();
  await bob.goto(base + '/signup');
  await bob.fill('#f-workspace_name', 'Bob Training');
  await bob.fill('#f-email', 'bob@example.com');
  await bob.fill('#f-password', 'bob has a long passphrase too');
  await Promise.all([bob.waitForNavigation(), bob.click('main form button[type=submit]')]);
  await bob.goto((newestMail().match(/https?:\/\/\S+\/verify\?token=\S+/) || [''])[0]);
  await Promise.all([bob.waitForURL(base + '/'), bob.click('main form button[type=submit]')]);
  await bob.goto(base + '/settings');
  await bob.fill('#f-email', 'ada@example.com');
  await bob.selectOption('#f-role', 'author');
  await Promise.all([bob.waitForNavigation(), bob.click('form[action="/settings/invitations"] button[type=submit]')]);
  await bobs.close();
  const adaInvite = (newestMail().match(/https?:\/\/\S+\/invitations\/\S+/) || [''])[0];
  await page.goto(adaInvite);
  check('an address with an account joins with its password', (await page.content()).includes('This address has an account'), await page.textContent('main'));
  await page.fill('#f-password', 'correct horse battery staple');
  await Promise.all([page.waitForURL(base + '/'), page.click('main form button[type=submit]')]);
  check('the header offers the two workspaces', (await page.locator('#ws-switch option').count()) === 2, await page.innerHTML('header'));
  check('she is in Bob Training', (await page.locator('#ws-switch option:checked').textContent()).includes('Bob Training'), '');
  await look(page, '13-workspace-switcher');
  await page.focus('#ws-switch');
  await page.keyboard.press('ArrowUp');
  check('focus reaches Switch with Tab', await tabTo(page, 'form[action="/workspace"] button'), 'never focused');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  check('switching shows the first workspace', (await page.content()).includes('Fire safety') && (await page.locator('#ws-switch option:checked').textContent()).includes('Acme Academy'), await page.innerHTML('header'));

  check('no script errors', errors.length === 0, errors.join('; '));
  check('no request leaves the service', external.length === 0, external.join(', '));
} finally {
  await browser.close();
  receiver.close();
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
