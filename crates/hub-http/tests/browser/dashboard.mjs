// The dashboard as a new user meets it, in headless Chromium: sign up, open
// the verification link from the mail a real SMTP receiver got, sign in
// with the keyboard, create a project, drop a spec file, see its docs, push
// and promote a second version, read the diff, create a token and use it on
// the API, revoke it and see the next call refused, sign out. Every page is
// scanned with axe-core (no serious or critical violation), checked for
// horizontal scrolling at 375 px, and photographed (light, dark, phone).
//
// Usage: node dashboard.mjs BASE_URL ARTIFACT_DIR MAILDIR SPEC_V1 SPEC_V2
// Environment: DOCS_MODULES (node_modules with playwright-core and
// axe-core), CHROMIUM.

import { createRequire } from 'node:module';
import { join } from 'node:path';
import { readFileSync, readdirSync, mkdirSync, existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';

const [base, artifacts, maildir, specV1, specV2] = process.argv.slice(2);
const require = createRequire(join(process.env.DOCS_MODULES || '.', 'node_modules', 'x.js'));
const { chromium } = require('playwright-core');
const axeSource = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const shots = join(artifacts, 'dashboard');
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

/** Screenshot, axe scan, and the same page at 375 px without sideways scrolling. */
async function look(page, name) {
  await page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const violations = await axe(page);
  check(`${name}: axe-core finds no serious or critical violation`, violations.length === 0, violations.join('; '));
  const wide = page.viewportSize();
  await page.setViewportSize({ width: 375, height: 800 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  check(`${name}: readable at 375 px (no sideways scrolling)`, overflow <= 0, `${overflow}px too wide`);
  await page.screenshot({ path: join(shots, `${name}-375.png`), fullPage: true });
  await page.setViewportSize(wide);
}

/** The page in dark mode at 1440 and 375 px: screenshots and axe. */
async function lookDark(page, name) {
  const wide = page.viewportSize();
  await page.emulateMedia({ colorScheme: 'dark' });
  for (const width of [1440, 375]) {
    await page.setViewportSize({ width, height: 860 });
    await page.screenshot({ path: join(shots, `${name}-${width}-dark.png`), fullPage: true });
  }
  const violations = await axe(page);
  check(`${name} (dark): axe-core finds no serious or critical violation`, violations.length === 0, violations.join('; '));
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize(wide);
}

/** The newest mail in the maildir, decoded enough to find links. */
function newestMail() {
  const dir = join(maildir, 'new');
  if (!existsSync(dir)) return '';
  const files = readdirSync(dir).map((f) => join(dir, f));
  if (!files.length) return '';
  files.sort();
  const raw = readFileSync(files[files.length - 1], 'utf8');
  // Quoted-printable soft breaks and escapes; base64 parts decoded whole.
  let text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  for (const block of raw.split(/\r?\n\r?\n/)) {
    if (/^[A-Za-z0-9+/=\r\n]{40,}$/.test(block.trim())) text += Buffer.from(block.replace(/\s+/g, ''), 'base64').toString('utf8');
  }
  return text;
}

async function waitForMail(count) {
  for (let i = 0; i < 100; i++) {
    const dir = join(maildir, 'new');
    if (existsSync(dir) && readdirSync(dir).length >= count) return newestMail();
    await new Promise((r) => setTimeout(r, 100));
  }
  return '';
}

/** The text of the first mail whose decoded body matches `pattern`, waiting for it. */
async function mailMatching(pattern) {
  for (let i = 0; i < 100; i++) {
    const dir = join(maildir, 'new');
    if (existsSync(dir)) {
      for (const f of readdirSync(dir).sort()) {
        const raw = readFileSync(join(dir, f), 'utf8');
        let text = raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
        for (const block of raw.split(/\r?\n\r?\n/)) {
          if (/^[A-Za-z0-9+/=\r\n]{40,}$/.test(block.trim())) text += Buffer.from(block.replace(/\s+/g, ''), 'base64').toString('utf8');
        }
        if (pattern.test(text)) return text;
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return '';
}

/** Moves focus with Tab until `selector` has it (keyboard-only use). */
async function tabTo(page, selector, limit = 40) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((s) => document.activeElement && document.activeElement.matches(s), selector)) return true;
  }
  return false;
}

const email = `new-user-${Date.now()}@example.com`;
const password = 'quiet harbour lanterns';
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await context.newPage();

  // Sign up with the keyboard alone.
  await page.goto(`${base}/app/signup`);
  await look(page, '01-signup');
  check('sign-up: the email field is reachable by Tab', await tabTo(page, '#f-email'), 'never focused');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type('password1234');
  await Promise.all([page.waitForLoadState('load'), page.keyboard.press('Enter')]);
  check('sign-up: a common password is refused beside its field',
    (await page.locator('#e-password').textContent() || '').includes('less common password'), await page.content());
  await look(page, '02-signup-error');
  await page.fill('#f-password', password);
  await Promise.all([page.waitForNavigation(), page.press('#f-password', 'Enter')]);
  check('sign-up: asks to check the mail', (await page.textContent('h1')).includes('Check your mail'), await page.textContent('main'));
  await look(page, '03-check-mail');

  // Signing in before verifying says so once, with the resend button.
  await page.goto(`${base}/app/signin`);
  await page.fill('#f-email', email);
  await page.fill('#f-password', password);
  await Promise.all([page.waitForNavigation(), page.press('#f-password', 'Enter')]);
  const unverifiedText = await page.textContent('main');
  check('sign-in before verifying: the message shows once', unverifiedText.split('Verify your address first').length - 1 === 1, unverifiedText);
  await look(page, '03b-signin-unverified');
  await lookDark(page, '03b-signin-unverified');

  // The verification link, from the SMTP receiver.
  const mail = await waitForMail(1);
  check('mail: the SMTP receiver got the verification mail', mail.includes(email) && mail.includes('/app/verify?token='), mail.slice(0, 400));
  const link = (mail.match(/https?:\/\/[^\s"<>]+\/app\/verify\?token=[A-Za-z0-9_-]+/) || [])[0];
  check('mail: the link is built from the public URL', link && link.startsWith(base), link);
  await page.goto(link);
  await look(page, '04-verify');
  await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')]);
  check('verify: lands on sign-in with a notice', (await page.textContent('.flash') || '').includes('verified'), await page.textContent('main'));

  // Sign in with the keyboard.
  await look(page, '05-signin');
  await page.focus('#f-password');
  await page.keyboard.type(password);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  check('sign-in: opens the projects page', page.url().endsWith('/app'), page.url());
  await look(page, '06-projects-empty');

  // Create a project, with the keyboard.
  await page.click('text=Create your first project');
  check('new project: the name field is reachable by Tab', await tabTo(page, '#f-name'), 'never focused');
  await page.keyboard.type('Petstore');
  await look(page, '07-project-new');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  check('new project: its page opens', /\/app\/p\/petstore$/.test(page.url()), page.url());
  const emptyVersions = await page.textContent('.empty');
  check('new project: the empty state reads as text (no Markdown backticks)', emptyVersions.includes('svc push') && !emptyVersions.includes('`'), emptyVersions);
  await look(page, '07b-project-empty');
  await lookDark(page, '07b-project-empty');

  // The mock tab of a private project says the hosted mock serves public
  // projects, and offers making it public or the local mock.
  await page.goto(`${base}/app/p/petstore/mock`);
  const mockNote = await page.textContent('#mock-private');
  check('mock tab: a private project is told the mock serves public projects', mockNote.includes('serves public projects only') && mockNote.includes('svc mock'), mockNote);
  check('mock tab: it offers making the project public', await page.locator('#mock-private a', { hasText: 'Make the project public' }).count() === 1, mockNote);
  await look(page, '07c-mock-private');
  await lookDark(page, '07c-mock-private');
  await page.goto(`${base}/app/p/petstore`);

  // Drop a spec: choosing the file uploads it (progress, then the page).
  await page.fill('#f-label', '1.0');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.setInputFiles('#f-spec', specV1)]);
  check('upload: the version is added', (await page.textContent('.flash')).includes('Version 1.0 added'), await page.textContent('main'));
  await look(page, '08-project-versions');

  // Its docs.
  const docs = await context.newPage();
  await docs.goto(`${base}/docs/petstore`);
  check('docs: the pushed spec is rendered', (await docs.content()).includes('Petstore'), (await docs.content()).slice(0, 300));
  await docs.screenshot({ path: join(shots, '09-docs.png') });
  await docs.close();

  // A second version, promoted.
  await page.fill('#f-label', '2.0');
  await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.setInputFiles('#f-spec', specV2)]);
  check('upload: the second version is added', (await page.textContent('.flash')).includes('Version 2.0 added'), await page.textContent('main'));
  const row = page.locator('tr', { hasText: '2.0' });
  await Promise.all([page.waitForNavigation(), row.locator('button', { hasText: 'Make default' }).click()]);
  check('promote: 2.0 is the default', (await page.textContent('.flash')).includes('2.0 is now the default'), await page.textContent('main'));
  await look(page, '10-promoted');

  // Diffs are a Pro feature: ask for the plan on the account page, and the
  // operator completes the request with the command line.
  await page.goto(`${base}/app/account`);
  const planOptions = await page.locator('#f-plan option').allTextContents();
  check('plan: prices carry their currency', planOptions.some((o) => o.includes('pro · US$9 a month')) && planOptions.some((o) => o.includes('free · free')), planOptions.join(' | '));
  await page.selectOption('#f-plan', 'pro');
  await Promise.all([page.waitForNavigation(), page.click('text=Request the change')]);
  check('plan: the request is recorded', (await page.textContent('main')).includes('You asked for the pro plan'), await page.textContent('main'));
  execFileSync(process.env.SVC_BIN, ['--data-dir', process.env.SVC_DATA, 'hub', 'user', 'set-plan', '--email', email, '--plan', 'pro']);

  // The docs builder: a theme token typed (not saved) recolours the real
  // docs page in the preview frame.
  await page.goto(`${base}/app/p/petstore/docs`);
  await page.waitForFunction(() => { const f = document.getElementById('docs-preview'); return f && f.contentDocument && f.contentDocument.readyState === 'complete' && f.contentDocument.body; });
  await page.fill('#f-light_primary', '#b00020');
  const recoloured = await page.waitForFunction(() => {
    const doc = document.getElementById('docs-preview').contentDocument;
    return doc && getComputedStyle(doc.documentElement).getPropertyValue('--primary').trim() === '#b00020';
  }, null, { timeout: 5000 }).then(() => true, () => false);
  const primary = await page.evaluate(() => getComputedStyle(document.getElementById('docs-preview').contentDocument.documentElement).getPropertyValue('--primary'));
  check('docs builder: an unsaved theme token recolours the preview', recoloured, `--primary is ${primary}; ${await page.textContent('#preview-note')}`);
  check('docs builder: the note says the theme is unsaved', (await page.textContent('#preview-note')).includes('unsaved'), await page.textContent('#preview-note'));
  await page.fill('#f-light_primary', 'red');
  await page.waitForFunction(() => document.getElementById('preview-note').textContent.includes('paused'), null, { timeout: 5000 }).catch(() => {});
  check('docs builder: an invalid token pauses the preview with the reason', (await page.textContent('#preview-note')).includes('Preview paused'), await page.textContent('#preview-note'));
  await page.fill('#f-light_primary', '#b00020');
  await page.waitForFunction(() => document.getElementById('preview-note').textContent.includes('unsaved'), null, { timeout: 5000 }).catch(() => {});
  await look(page, '15-docs-builder');

  // Endpoint pages: markdown previewed as it is typed, then saved.
  await Promise.all([page.waitForNavigation(), page.click('text=Write endpoint pages')]);
  await look(page, '16-endpoint-pages');
  await Promise.all([page.waitForNavigation(), page.locator('a.mono', { hasText: /^GET \/pets$/ }).click()]);
  await page.fill('#f-intro', '## Paging\n\nAsk for *fifty* pets at a time.');
  const previewed = await page.waitForFunction(() => {
    const f = document.querySelector('iframe[name=md-preview]');
    try { return f.contentDocument && f.contentDocument.body.innerHTML.includes('<em>fifty</em>'); } catch (e) { return false; }
  }, null, { timeout: 5000 }).then(() => true, () => false);
  // The preview is sandboxed: when its document cannot be read from here,
  // read it through the frame itself.
  const md = page.frames().find((f) => f.name() === 'md-preview');
  const mdHtml = md ? await md.content() : '';
  check('endpoint page: the markdown preview follows the typing', previewed || mdHtml.includes('<em>fifty</em>'), mdHtml.slice(0, 300));
  await look(page, '17-endpoint-editor');
  await Promise.all([page.waitForNavigation(), page.click('button:text-is("Save")')]);
  check('endpoint page: saved', (await page.textContent('.flash')).includes('Saved'), await page.textContent('main'));
  const docsPage = await context.newPage();
  await docsPage.goto(`${base}/docs/petstore/2.0/op/listPets`);
  check('endpoint page: the docs page shows the markdown', (await docsPage.content()).includes('<em>fifty</em>'), docsPage.url());
  await docsPage.close();

  // An override written in its fields.
  await page.goto(`${base}/app/p/petstore/mock/overrides/new`);
  await page.fill('#f-name', 'Teapot');
  await page.selectOption('#f-method', 'GET');
  await page.fill('#f-path', '/pets');
  await page.fill('#f-status', '418');
  await page.fill('#f-response_headers', 'Set-Cookie: a=b');
  await page.fill('#f-response_body', '{"teapot": true}');
  await Promise.all([page.waitForNavigation(), page.click('text=Save override')]);
  check('override: a forbidden header is refused beside its field', (await page.textContent('#e-response_headers') || '').includes('Set-Cookie'), await page.textContent('main'));
  await look(page, '18-override-refused');
  await page.fill('#f-response_headers', 'Retry-After: 5');
  await Promise.all([page.waitForNavigation(), page.click('text=Save override')]);
  check('override: saved from its fields', (await page.textContent('.flash')).includes('Override Teapot saved'), await page.textContent('main'));
  check('override: listed with its status', (await page.textContent('main')).includes('418'), await page.textContent('main'));
  await page.goto(`${base}/app/p/petstore`);

  // The diff.
  await page.click('nav.tabs >> text=Diff');
  await page.selectOption('#f-from', '1.0');
  await page.selectOption('#f-to', '2.0');
  await Promise.all([page.waitForNavigation(), page.click('text=Compare')]);
  const diffText = await page.textContent('main');
  check('diff: the change and the semver advice are shown', /a (minor|major|patch) release/.test(diffText) && diffText.includes('Markdown report'), diffText.slice(0, 500));
  await look(page, '11-diff');

  // A token, used on the API, then revoked.
  await page.click('nav[aria-label=Main] >> text=Tokens');
  await page.fill('#f-name', 'laptop');
  await Promise.all([page.waitForNavigation(), page.click('text=Create token')]);
  const token = (await page.textContent('#new-token')).trim();
  check('token: the plaintext is shown once', token.startsWith('svc_pat_'), token);
  await look(page, '12-token-created');
  const api = await fetch(`${base}/api/v1/projects`, { headers: { Authorization: `Bearer ${token}` } });
  const listed = await api.json();
  check('token: it works on /api/v1', api.status === 200 && JSON.stringify(listed).includes('petstore'), `${api.status} ${JSON.stringify(listed).slice(0, 200)}`);
  await page.goto(`${base}/app/tokens`);
  check('token: the list does not show the plaintext again', !(await page.content()).includes(token), 'plaintext visible');
  const prefix = await page.locator('td[data-label=Token]').first().textContent();
  check('token: the prefix ends in one ellipsis', prefix.endsWith('…') && !prefix.includes('……'), prefix);
  await look(page, '12b-token-list');
  await lookDark(page, '12b-token-list');
  await Promise.all([page.waitForNavigation(), page.locator('tr', { hasText: 'laptop' }).locator('button', { hasText: 'Revoke' }).click()]);
  const refused = await fetch(`${base}/api/v1/projects`, { headers: { Authorization: `Bearer ${token}` } });
  const envelope = await refused.json();
  check('token: the next call after revoking is refused', refused.status === 401 && envelope.error && envelope.error.code === 'INVALID_TOKEN', `${refused.status} ${JSON.stringify(envelope)}`);

  // The account, in dark mode too.
  await page.goto(`${base}/app/account`);
  await look(page, '13-account');
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.screenshot({ path: join(shots, '13-account-dark.png'), fullPage: true });
  const darkViolations = await axe(page);
  check('account (dark): axe-core finds no serious or critical violation', darkViolations.length === 0, darkViolations.join('; '));
  await page.goto(`${base}/app/p/petstore`);
  await page.screenshot({ path: join(shots, '14-project-dark.png'), fullPage: true });
  await page.emulateMedia({ colorScheme: 'light' });

  // The team: on Business, a collaborator is invited by mail (a real SMTP
  // receiver), signs up through the link in a browser of their own, and
  // the owner gives them another role on one project; the audit log shows
  // it all, and its webhook settings show the secret once.
  execFileSync(process.env.SVC_BIN, ['--data-dir', process.env.SVC_DATA, 'hub', 'user', 'set-plan', '--email', email, '--plan', 'business']);
  await page.goto(`${base}/app/team`);
  check('team: the seats of Business are shown', (await page.textContent('main')).includes('of 10 used'), await page.textContent('main'));
  const invitee = `teammate-${Date.now()}@example.com`;
  await page.focus('#f-email');
  await page.keyboard.type(invitee);
  await page.selectOption('#f-role', 'viewer');
  await Promise.all([page.waitForNavigation(), page.click('text=Send invitation')]);
  check('team: the invitation is sent', (await page.textContent('.flash')).includes(`Invitation sent to ${invitee}`), await page.textContent('main'));
  await look(page, '19-team');
  await lookDark(page, '19-team');
  const invitationMail = await mailMatching(/\/app\/invitations\//);
  const inviteLink = (invitationMail.match(/https?:\/\/[^\s"<>]*\/app\/invitations\/[A-Za-z0-9_-]+/) || [''])[0];
  check('team: the invitation arrives by mail with its link', inviteLink.includes("/app/invitations/"), invitationMail.slice(0, 400));
  const other = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const guest = await other.newPage();
  await guest.goto(inviteLink.replace(/^https?:\/\/[^/]+/, base));
  check('invitation: the page names the inviter and the role', (await guest.textContent('main')).includes('as viewer'), await guest.textContent('main'));
  await look(guest, '20-invitation');
  await lookDark(guest, '20-invitation');
  await guest.fill('#f-password', 'copper kettle morning walk');
  await Promise.all([guest.waitForNavigation(), guest.click('text=Create account and join')]);
  check('invitation: the newcomer is signed in and sees the project', guest.url().endsWith('/app') && (await guest.textContent('main')).includes('petstore'), `${guest.url()} ${await guest.textContent('main')}`);
  await page.goto(`${base}/app/p/petstore/access`);
  const memberRow = page.locator('tr', { hasText: invitee });
  await memberRow.locator('select').selectOption('editor');
  await Promise.all([page.waitForNavigation(), memberRow.locator('button', { hasText: 'Save' }).click()]);
  check('access: a per-project role is saved', (await page.textContent('.flash')).includes('Access saved'), await page.textContent('main'));
  await look(page, '21-access');
  await lookDark(page, '21-access');
  await other.close();
  await page.goto(`${base}/app/audit?category=collaborators`);
  const auditText = await page.textContent('main');
  check('audit: the invitation, the join and the role change are listed', ['COLLABORATOR_INVITED', 'COLLABORATOR_JOINED', 'COLLABORATOR_ROLE_CHANGED'].every((c) => auditText.includes(c)), auditText.slice(0, 600));
  await look(page, '22-audit');
  await lookDark(page, '22-audit');
  await page.goto(`${base}/app/audit/settings`);
  await page.selectOption('#f-retention_days', '365');
  await page.fill('#f-webhook_url', 'https://hooks.example.com/audit');
  await Promise.all([page.waitForNavigation(), page.click('button:text-is("Save")')]);
  const secretShown = (await page.textContent('#new-secret') || '').trim();
  check('audit settings: the webhook secret is shown once', secretShown.length === 43, secretShown);
  await look(page, '23-audit-settings');
  await lookDark(page, '23-audit-settings');
  await page.goto(`${base}/app/audit/settings`);
  check('audit settings: the secret is not shown again', !(await page.content()).includes(secretShown), 'secret visible');

  // Monitoring: the project goes public with the hub's own mock as its API,
  // its operations are turned on (the first with the keyboard), a round
  // runs through the cron route, and the Monitoring tab, a monitor's checks
  // and the public status page show the result.
  await page.goto(`${base}/app/p/petstore/settings`);
  await page.fill('#f-base_url', `${base}/mock/petstore`);
  if (!(await page.isChecked('#f-is_public'))) await page.check('#f-is_public');
  await Promise.all([page.waitForNavigation(), page.click('button:text-is("Save settings")')]);
  check('monitoring: the project is public with the mock as its API', (await page.textContent('.flash')).includes('Settings saved'), await page.textContent('main'));
  await page.goto(`${base}/app/p/petstore/monitoring`);
  check('monitoring: every operation is listed, none checked yet', (await page.locator('button', { hasText: /^Turn on/ }).count()) >= 3, await page.textContent('main'));
  await page.locator('button', { hasText: /^Turn on/ }).first().focus();
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  check('monitoring: a monitor is turned on with the keyboard', (await page.textContent('.flash')).includes('is monitored from the next round'), await page.textContent('main'));
  while (await page.locator('button', { hasText: /^Turn on/ }).count() > 0) {
    await Promise.all([page.waitForNavigation(), page.locator('button', { hasText: /^Turn on/ }).first().click()]);
  }
  const round = await fetch(`${base}/api/cron/uptime`, { method: 'POST', headers: { Authorization: `Bearer ${process.env.CRON_SECRET}` } });
  const probed = (await round.json()).probed;
  check('monitoring: a round probes every monitored operation', round.status === 200 && probed >= 3, `${round.status} ${probed}`);
  await page.goto(`${base}/app/p/petstore/monitoring`);
  const monitoringText = await page.textContent('main');
  check('monitoring: the tab shows states in words', /Operational|Degraded|Down/.test(monitoringText) && monitoringText.includes('Credentials for probes'), monitoringText.slice(0, 600));
  await look(page, '24-monitoring');
  await lookDark(page, '24-monitoring');
  await Promise.all([page.waitForNavigation(), page.locator('a', { hasText: 'Checks' }).first().click()]);
  check('monitor: its checks are listed', (await page.locator('table tbody tr').count()) >= 1, await page.textContent('main'));
  await look(page, '25-monitor');
  await lookDark(page, '25-monitor');
  const status = await context.newPage();
  await status.goto(`${base}/status/petstore`);
  const bar = await status.locator('.checks').first().getAttribute('aria-label');
  check('status page: the bar is described for screen readers', /1 checks? in the last 24 hours/.test(bar || ''), bar);
  check('status page: a banner summarises the state', (await status.locator('.banner').count()) === 1, await status.textContent('main'));
  const json = await (await fetch(`${base}/status/petstore`, { headers: { Accept: 'application/json' } })).json();
  check('status page: the JSON has a row per monitored operation', json.rows.length === probed && json.rows.every((r) => r.segments.length === 1), JSON.stringify(json).slice(0, 300));
  await look(status, '26-status-page');
  await lookDark(status, '26-status-page');
  await status.close();

  // Webhook inboxes: one made with a Stripe secret; a capture signed as
  // Stripe signs arrives while the page is open and shows without a reload
  // (server-sent events); the verifier checks the same signature in the
  // browser, and no request it makes carries the secret.
  const inboxSecret = 'whsec_browser_only_secret';
  await page.goto(`${base}/app/inboxes`);
  await page.fill('#f-name', 'Payments');
  await page.selectOption('#f-scheme', 'stripe');
  await page.fill('#f-secret', inboxSecret);
  await Promise.all([page.waitForNavigation(), page.click('button:has-text("Make inbox")')]);
  check('inbox: made, with its capture URL', (await page.textContent('.flash')).includes('Inbox made') && (await page.textContent('#capture-url')).includes('/i/ibx_'), await page.textContent('main'));
  const inboxId = page.url().split('/app/inboxes/')[1];
  const hookBody = '{"id":"evt_browser","type":"charge.succeeded","data":{"object":{"amount":4200}}}';
  const hookTs = Math.floor(Date.now() / 1000);
  const hookSig = `t=${hookTs},v1=${createHmac('sha256', inboxSecret).update(`${hookTs}.${hookBody}`).digest('hex')}`;
  await page.waitForTimeout(300);
  const delivered = await fetch(`${base}/i/${inboxId}/stripe`, { method: 'POST', headers: { 'Stripe-Signature': hookSig, 'Content-Type': 'application/json' }, body: hookBody });
  check('inbox: a Stripe-signed request is captured', delivered.status === 200, String(delivered.status));
  const arrived = await page.waitForSelector('details.capture', { timeout: 10000 }).then(() => true, () => false);
  check('inbox: the capture shows without a reload (server-sent events)', arrived, await page.textContent('main'));
  await page.locator('details.capture summary').first().focus();
  await page.keyboard.press('Enter');
  check('inbox: the capture opens with the keyboard, verified, with its body', (await page.textContent('details.capture')).includes('signature verified') && (await page.textContent('details.capture pre')).includes('"amount": 4200'), await page.textContent('main'));
  await look(page, '27-inbox');
  await lookDark(page, '27-inbox');
  await page.goto(`${base}/app/inboxes`);
  check('inboxes: the list shows the inbox live with its scheme', (await page.textContent('main')).includes('Stripe') && (await page.textContent('main')).includes('live'), await page.textContent('main'));
  await look(page, '28-inboxes');
  await lookDark(page, '28-inboxes');
  await page.goto(`${base}/app/inboxes/${inboxId}/settings`);
  await look(page, '29-inbox-settings');
  await lookDark(page, '29-inbox-settings');
  const sent = [];
  page.on('request', (request) => sent.push(`${request.url()} ${request.postData() || ''}`));
  await page.goto(`${base}/app/inboxes/verify`);
  await page.selectOption('#v-scheme', 'stripe');
  await page.fill('#v-secret', inboxSecret);
  await page.fill('#v-headers', `Content-Type: application/json\nStripe-Signature: ${hookSig}`);
  await page.fill('#v-body', hookBody);
  await page.click('button:has-text("Verify")');
  await page.waitForFunction(() => document.getElementById('verify-result').textContent.length > 0);
  check('verifier: a good signature is verified in the browser', (await page.textContent('#verify-result')).startsWith('Verified'), await page.textContent('#verify-result'));
  await look(page, '30-verifier');
  await page.fill('#v-body', hookBody.replace('4200', '4201'));
  await page.click('button:has-text("Verify")');
  await page.waitForFunction(() => document.getElementById('verify-result').textContent.startsWith('Not verified'));
  check('verifier: a changed byte is not verified', (await page.textContent('#verify-result')).includes('does not match'), await page.textContent('#verify-result'));
  await lookDark(page, '30-verifier');
  check('verifier: no request carries the secret', sent.length > 0 && !sent.some((line) => line.includes(inboxSecret)), sent.join('\n').slice(0, 500));
  page.removeAllListeners('request');

  // Saved requests: the inbox is linked to the project and a capture is
  // saved as a request; an environment holds the mock's URL and a secret;
  // a request written in the form runs with Ctrl+Enter against the mock,
  // and the page shows the answer without the secret.
  const workbenchSecret = 'tok_browser_secret_42';
  await page.goto(`${base}/app/inboxes/${inboxId}/settings`);
  await page.selectOption('#f-project', 'petstore');
  await Promise.all([page.waitForNavigation(), page.click('button:has-text("Save settings")')]);
  await page.goto(`${base}/app/inboxes/${inboxId}`);
  await page.locator('details.capture summary').first().click();
  await Promise.all([page.waitForNavigation(), page.locator('button', { hasText: 'Save as a request of petstore' }).first().click()]);
  check('saved requests: a capture becomes a request of the linked project', page.url().includes('/app/p/petstore/requests/req_') && (await page.textContent('main')).includes('{{receiver}}/stripe'), page.url());
  await page.goto(`${base}/app/p/petstore/environments`);
  await page.fill('#f-name', 'Mock');
  await page.fill('#f-variables', `mock=${base}/mock/petstore\nreceiver=${base}/mock/petstore`);
  await page.fill('#f-new_secrets', `token=${workbenchSecret}`);
  await page.check('#f-is_default');
  await Promise.all([page.waitForNavigation(), page.click('button:has-text("Make the environment")')]);
  check('environment: made, its secret never shown', (await page.textContent('.flash')).includes('Environment made') && !(await page.content()).includes(workbenchSecret), await page.textContent('main'));
  await look(page, '31-environment');
  await lookDark(page, '31-environment');
  await page.goto(`${base}/app/p/petstore/environments`);
  await look(page, '32-environments');
  await page.goto(`${base}/app/p/petstore/requests/new`);
  await page.fill('#f-name', 'List pets');
  await page.fill('#f-folder', 'Pets');
  await page.fill('#f-url', '{{mock}}/pets');
  await page.fill('#f-query', 'limit=2');
  await page.fill('#f-headers', 'Authorization: Bearer {{token}}');
  await Promise.all([page.waitForNavigation(), page.click('button:has-text("Save the request")')]);
  check('saved requests: a request written in the form is saved', (await page.textContent('.flash')).includes('Request saved'), await page.textContent('main'));
  await page.focus('#f-body');
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Control+Enter')]);
  const ranText = await page.textContent('main');
  check('saved requests: Ctrl+Enter runs it against the mock (its status and time shown)', /\b[1-5]\d\d in \d+ ms/.test(ranText.replace(/\s+/g, ' ')) && page.url().endsWith('/run'), ranText.slice(0, 600));
  check('saved requests: the answer is highlighted and the secret is nowhere', (await page.locator('#result pre.code .p').count()) > 0 && !(await page.content()).includes(workbenchSecret), (await page.content()).slice(0, 300));
  check('saved requests: copy as curl names the secret as a shell variable', (await page.textContent('#curl')).includes('${TOKEN}'), await page.textContent('#curl'));
  await look(page, '33-request');
  await lookDark(page, '33-request');
  await page.goto(`${base}/app/p/petstore/requests`);
  check('saved requests: listed by folder', (await page.textContent('main')).includes('Inbox captures') && (await page.textContent('main')).includes('List pets'), await page.textContent('main'));
  await look(page, '34-requests');
  await lookDark(page, '34-requests');

  // Sign out.
  await Promise.all([page.waitForNavigation(), page.click('text=Sign out')]);
  check('sign-out: back at sign-in', page.url().includes('/app/signin'), page.url());
  await page.goto(`${base}/app`);
  check('sign-out: the dashboard asks to sign in again', page.url().includes('/app/signin'), page.url());
} finally {
  await browser.close();
}
console.log(`\n${passed} passed, ${failed} failed; screenshots in ${shots}`);
process.exit(failed === 0 ? 0 : 1);
