// Browser checks of the courses service, against a running `svc serve courses`:
//
// 1. SCORM 1.2 and SCORM 2004 exports, unzipped and served locally, run in
//    the scorm-again runtime inside headless Chromium; a scripted learner
//    answers the quiz and the runtime must report completion and the score.
//    The same package, imported again (as exported and re-zipped deflated),
//    must reproduce the course.
// 2. The learner player of a published course: open, answer, finish, and the
//    certificate PDF must carry the learner's name, centred (read with
//    pdftotext).
// 3. A translation applied in the player.
// 4. The webhook sender of the running service: a receiver on loopback
//    (allowed with SVC_OUTBOUND_ALLOW by the runner) gets the player's
//    completion, signed the Standard Webhooks way.
// 5. The rows of the error table that need no clock, over real HTTP.
// 6. SCORM 1.2 and 2004 packages made by another tool (built here in the
//    shape of ADL's content examples) import, play in the learner player
//    with the runtime the service provides, and the SCO's scripted learner's
//    completion, score and suspend data reach /v1/completions; the SCO runs
//    in an opaque origin that cannot reach the player, and a second opening
//    resumes from the suspend data.
//
// Usage: node run.mjs BASE_URL API_KEY READ_ONLY_KEY SANDBOX_KEY
// (a Scale workspace's read-write and read-only keys, a Sandbox workspace's key)
// Environment: BROWSER_MODULES (folder holding node_modules with
// playwright-core and scorm-again), CHROMIUM (default /usr/bin/chromium).

import { createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createServer, request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join, normalize, extname, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const [base, key, readOnlyKey, sandboxKey] = process.argv.slice(2);
const modules = join(process.env.BROWSER_MODULES || '.', 'node_modules');
const require = createRequire(join(modules, 'noop.js'));
const { chromium } = require('playwright-core');
const here = dirname(fileURLToPath(import.meta.url));
const work = mkdtempSync(join(tmpdir(), 'courses-browser-'));

let passed = 0;
let failed = 0;
function check(name, ok, detail) {
  if (ok) { passed++; console.log(`ok   ${name}`); } else { failed++; console.log(`FAIL ${name}: ${detail}`); }
}
function equal(name, actual, expected) {
  const a = JSON.stringify(actual), e = JSON.stringify(expected);
  check(name, a === e, `got ${a}, expected ${e}`);
}

async function api(method, path, body, raw) {
  const headers = { authorization: `Bearer ${key}` };
  if (body !== undefined && !raw) headers['content-type'] = 'application/json';
  const res = await fetch(base + path, { method, headers, body: raw ? body : body === undefined ? undefined : JSON.stringify(body) });
  const type = res.headers.get('content-type') || '';
  const data = type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer());
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

// --- the course --------------------------------------------------------------
const course = await api('POST', '/v1/courses', {
  title: 'Fire safety',
  passingScore: 50,
  screens: [
    { id: 'intro', title: 'Welcome', blocks: [{ id: 't1', type: 'text', text: 'Two minutes to learn the basics.' }] },
    { id: 'quiz', title: 'Check', blocks: [
      { id: 'q1', type: 'multiple_choice', question: 'Which extinguisher for an oil fire?', options: ['Water', 'Foam'], correctIndex: 1 },
      { id: 'q2', type: 'true_false', statement: 'Use the lifts during a fire.', answer: false },
    ] },
  ],
});
await api('POST', `/v1/courses/${course.id}/publish`, {});
const content = c => JSON.stringify({ title: c.title, passingScore: c.passingScore, screens: c.screens });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});

// --- 1. SCORM packages in scorm-again ----------------------------------------------
let packageDir = '';
const lib = join(modules, 'scorm-again', 'dist');
const types = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.xml': 'application/xml' };
const server = createServer((req, res) => {
  const url = new URL(req.url, 'http://x');
  let file = null;
  if (url.pathname === '/lms.html') file = join(here, 'lms.html');
  else if (url.pathname.startsWith('/lib/')) file = join(lib, normalize(url.pathname.slice(5)).replace(/^(\.\.[/\\])+/, ''));
  else if (url.pathname.startsWith('/pkg/')) file = join(packageDir, normalize(url.pathname.slice(5)).replace(/^(\.\.[/\\])+/, ''));
  if (!file || !existsSync(file)) { res.writeHead(404); res.end(); return; }
  res.writeHead(200, { 'content-type': types[extname(file)] || 'application/octet-stream' });
  res.end(readFileSync(file));
});
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));
const lms = `http://127.0.0.1:${server.address().port}/lms.html`;

for (const version of ['1.2', '2004']) {
  const zip = await api('GET', `/v1/courses/${course.id}/scorm?version=${version}`);
  const zipPath = join(work, `scorm-${version}.zip`);
  writeFileSync(zipPath, zip);
  packageDir = join(work, `scorm-${version}`);
  execFileSync('python3', ['-m', 'zipfile', '-e', zipPath, packageDir]);
  check(`SCORM ${version}: imsmanifest.xml at the package root`, existsSync(join(packageDir, 'imsmanifest.xml')), 'missing');

  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', e => errors.push(String(e)));
  await page.goto(`${lms}?version=${version}`);
  const sco = page.frameLocator('#sco');
  await sco.locator('#continue').click();
  await sco.getByLabel('Foam').check();   // right
  await sco.getByLabel('True').check();   // wrong: one of two, 50%
  await sco.locator('#finish').click();
  await sco.locator('#score').waitFor();
  const state = await page.evaluate(v => {
    if (v === '1.2') {
      const c = window.API.cmi.core;
      return { status: c.lesson_status, raw: c.score.raw, min: c.score.min, max: c.score.max, calls: window.calls };
    }
    const c = window.API_1484_11.cmi;
    return { completion: c.completion_status, success: c.success_status, scaled: c.score.scaled, raw: c.score.raw, calls: window.calls };
  }, version);
  if (version === '1.2') {
    equal('SCORM 1.2: cmi.core.lesson_status', state.status, 'passed');
    equal('SCORM 1.2: cmi.core.score.raw/min/max', [state.raw, state.min, state.max], ['50', '0', '100']);
    equal('SCORM 1.2: LMSInitialize, LMSCommit, LMSFinish in order', state.calls, ['LMSInitialize', 'LMSCommit', 'LMSFinish']);
  } else {
    equal('SCORM 2004: cmi.completion_status', state.completion, 'completed');
    equal('SCORM 2004: cmi.success_status', state.success, 'passed');
    equal('SCORM 2004: cmi.score.scaled and raw', [state.scaled, state.raw], ['0.5', '50']);
    equal('SCORM 2004: Initialize, Commit, Terminate in order', state.calls, ['Initialize', 'Commit', 'Terminate']);
  }
  equal(`SCORM ${version}: no script errors`, errors, []);
  await page.close();

  // Re-importing the package reproduces the course, as exported and deflated.
  const again = await api('POST', '/v1/courses/import/scorm', readFileSync(zipPath), true);
  equal(`SCORM ${version}: the re-imported course has the same content`, content(again), content(course));
  const deflated = join(work, `scorm-${version}-deflated.zip`);
  execFileSync('python3', ['-c', `
import sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as b:
    for n in a.namelist(): b.writestr(n, a.read(n))
`, zipPath, deflated]);
  const fromDeflated = await api('POST', '/v1/courses/import/scorm', readFileSync(deflated), true);
  equal(`SCORM ${version}: a deflated re-zip imports the same content`, content(fromDeflated), content(course));
}
server.close();

// --- 4. (set up first) a webhook receiver on loopback -----------------------------
const hooks = [];
const receiver = createServer((req, res) => {
  let body = '';
  req.on('data', chunk => { body += chunk; });
  req.on('end', () => { hooks.push({ path: req.url, headers: req.headers, body }); res.writeHead(204); res.end(); });
});
await new Promise(resolve => receiver.listen(0, '127.0.0.1', resolve));
const webhook = await api('POST', '/v1/webhooks', {
  url: `http://127.0.0.1:${receiver.address().port}/hooks/courses`, events: ['completion.created'],
});

// --- 2. the learner player end to end ------------------------------------------
await api('POST', '/v1/identities/bulk', { identities: [{ externalId: 'ada-1', name: 'Ada Lovelace', email: 'ada@example.com' }] });
{
  const page = await browser.newPage();
  // Learners arrive through signed links minted by the API; an unsigned or
  // altered learner id is refused.
  const link = await api('POST', `/v1/courses/${course.id}/embed-links`, { externalId: 'ada-1', expiresInSeconds: 600 });
  const unsigned = await page.request.get(`${base}/v1/embed/${course.id}?learner=ada-1`);
  equal('player: an unsigned learner id is refused', [unsigned.status(), (await unsigned.json()).error], [403, 'invalid_signature']);
  const altered = await page.request.get(`${base}${link.path.replace('learner=ada-1', 'learner=bob-2')}`);
  equal('player: an altered learner id is refused', altered.status(), 403);
  await page.goto(`${base}${link.path}`);
  equal('player: the course title', await page.locator('h1').textContent(), 'Fire safety');
  await page.locator('#continue').click();
  await page.getByLabel('Foam').check();
  await page.getByLabel('False').check();
  await page.locator('#finish').click();
  equal('player: the score', await page.locator('#score').textContent(), 'Your score: 100%');
  equal('player: the outcome', await page.locator('#outcome').textContent(), 'You passed.');
  const href = await page.locator('#certificate').getAttribute('href');
  const pdf = await page.request.get(new URL(href, base).toString());
  equal('player: the certificate is a PDF', pdf.headers()['content-type'], 'application/pdf');
  const pdfPath = join(work, 'certificate.pdf');
  writeFileSync(pdfPath, await pdf.body());
  const text = execFileSync('pdftotext', [pdfPath, '-'], { encoding: 'utf8' });
  check('player: pdftotext reads the learner\'s name on the certificate', text.includes('Ada Lovelace'), text);
  check('player: and the course title', text.includes('Fire safety'), text);
  // Centred: the name's words span equal room on either side of the page.
  const boxes = execFileSync('pdftotext', ['-bbox', pdfPath, '-'], { encoding: 'utf8' });
  const pageWidth = Number((boxes.match(/<page width="([\d.]+)"/) || [])[1]);
  const word = (w) => boxes.match(new RegExp(`xMin="([\\d.]+)" yMin="[\\d.]+" xMax="([\\d.]+)" yMax="[\\d.]+">${w}</word>`));
  const [first, last] = [word('Ada'), word('Lovelace')];
  const middle = first && last ? (Number(first[1]) + Number(last[2])) / 2 : NaN;
  check('player: the learner\'s name is centred on the certificate (pdftotext -bbox)', Math.abs(middle - pageWidth / 2) < 3, `${middle} of ${pageWidth}`);
  await page.close();
  const completions = await api('GET', '/v1/completions?limit=1000');
  const mine = completions.data.filter(c => c.courseId === course.id);
  equal('player: the API sees the completion and its score', mine.map(c => [c.score, c.passed]), [[100, true]]);
  const certificates = await api('GET', '/v1/issued-certificates');
  equal('player: the API sees the certificate', certificates.data.filter(c => c.courseId === course.id).length, 1);
}

// --- 3. a translation in the player ----------------------------------------------
await api('POST', '/v1/translations', {
  courseId: course.id, locale: 'fr',
  strings: { title: 'Sécurité incendie', 'intro.title': 'Bienvenue', 'ui.continue': 'Continuer', 'ui.back': 'Retour' },
});
{
  const page = await browser.newPage();
  await page.goto(`${base}/v1/embed/${course.id}?lang=fr`);
  equal('translation: the title', await page.locator('h1').textContent(), 'Sécurité incendie');
  equal('translation: the screen title', await page.locator('section h2').first().textContent(), 'Bienvenue');
  equal('translation: the player\'s words', [await page.locator('#back').textContent(), await page.locator('#continue').textContent()], ['Retour', 'Continuer']);
  equal('translation: the page language', await page.locator('html').getAttribute('lang'), 'fr');
  // An anonymous preview: the course plays, nothing is recorded.
  await page.locator('#continue').click();
  await page.locator('#finish').click();
  check('preview: finishing records nothing', (await page.locator('#preview').textContent()).includes('Nothing was recorded'), await page.content());
  await page.close();
  const completions = await api('GET', '/v1/completions?limit=1000');
  equal('preview: no completion was added', completions.data.filter(c => c.courseId === course.id).length, 1);
}

await browser.close();

// --- 6. SCORM packages of another tool, played in our player --------------------
function adlPackage(version) {
  const dir = join(work, `adl-${version}`);
  const v12 = version === '1.2';
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="com.scorm.golfsamples" version="1" xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="${v12 ? 'http://www.adlnet.org/xsd/adlcp_rootv1p2' : 'http://www.adlnet.org/xsd/adlcp_v1p3'}" xmlns:imsss="http://www.imsglobal.org/xsd/imsss">
  <metadata><schema>ADL SCORM</schema><schemaversion>${v12 ? '1.2' : '2004 4th Edition'}</schemaversion></metadata>
  <organizations default="org"><organization identifier="org"><title>Golf Explained ${version}</title>
    <item identifier="item_1" identifierref="resource_1" parameters="?content=playing"><title>Playing the Game</title>
      ${v12 ? '<adlcp:masteryscore>70</adlcp:masteryscore>' : '<imsss:sequencing><imsss:objectives><imsss:primaryObjective objectiveID="p" satisfiedByMeasure="true"><imsss:minNormalizedMeasure>0.7</imsss:minNormalizedMeasure></imsss:primaryObjective></imsss:objectives></imsss:sequencing>'}
    </item></organization></organizations>
  <resources><resource identifier="resource_1" type="webcontent" adlcp:${v12 ? 'scormtype' : 'scormType'}="sco" href="shared/launchpage.html">
    <file href="shared/launchpage.html"/><file href="shared/scormfunctions.js"/></resource></resources>
</manifest>`;
  const functions = `function findAPI(win, name) { var tries = 0; while (!win[name] && win.parent && win.parent != win && tries < 7) { tries++; win = win.parent; } return win[name] || null; }`;
  const page = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Playing</title><script src="scormfunctions.js"></script></head>
<body><h1>Playing the Game</h1><p id="status">loading</p><button id="pass" type="button">I have read it</button>
<script>
  var v2004 = ${v12 ? 'false' : 'true'};
  var api = findAPI(window, v2004 ? 'API_1484_11' : 'API');
  var statusLine = document.getElementById('status');
  if (!api) statusLine.textContent = 'no runtime';
  else {
    v2004 ? api.Initialize('') : api.LMSInitialize('');
    var resumed = v2004 ? api.GetValue('cmi.suspend_data') : api.LMSGetValue('cmi.suspend_data');
    var who = v2004 ? api.GetValue('cmi.learner_name') : api.LMSGetValue('cmi.core.student_name');
    statusLine.textContent = 'connected as ' + who + (resumed ? ', resumed at ' + resumed : '');
  }
  document.getElementById('pass').onclick = function () {
    if (v2004) {
      api.SetValue('cmi.score.raw', '85'); api.SetValue('cmi.score.scaled', '0.85');
      api.SetValue('cmi.completion_status', 'completed'); api.SetValue('cmi.suspend_data', 'hole=18'); api.SetValue('cmi.exit', 'suspend');
      api.Commit(''); api.Terminate('');
    } else {
      api.LMSSetValue('cmi.core.score.raw', '85'); api.LMSSetValue('cmi.core.lesson_status', 'completed');
      api.LMSSetValue('cmi.suspend_data', 'hole=18'); api.LMSSetValue('cmi.core.exit', 'suspend');
      api.LMSCommit(''); api.LMSFinish('');
    }
  };
</script></body></html>`;
  execFileSync('python3', ['-c', `
import sys, zipfile
dst = sys.argv[1]
files = dict(zip(sys.argv[2::2], sys.argv[3::2]))
with zipfile.ZipFile(dst, 'w', zipfile.ZIP_DEFLATED) as z:
    for name, text in files.items(): z.writestr(name, text)
`, dir + '.zip', 'imsmanifest.xml', manifest, 'shared/launchpage.html', page, 'shared/scormfunctions.js', functions]);
  return readFileSync(dir + '.zip');
}

{
  const browser2 = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  await api('POST', '/v1/identities/bulk', { identities: [{ externalId: 'golfer-1', name: 'Grace Golfer' }] });
  for (const version of ['1.2', '2004']) {
    const imported = await api('POST', '/v1/courses/import/scorm', adlPackage(version), true);
    const block = imported.screens[0].blocks[0];
    equal(`SCORM ${version} of another tool: imported as a course playing its SCO`, [imported.sourceKind, block.type, block.scormVersion, imported.passingScore], ['scorm_package', 'scorm', version, 70]);
    await api('POST', `/v1/courses/${imported.id}/publish`, {});
    const link = await api('POST', `/v1/courses/${imported.id}/embed-links`, { externalId: 'golfer-1', expiresInSeconds: 600 });
    const page = await browser2.newPage();
    const errors = [];
    page.on('pageerror', e => errors.push(String(e)));
    await page.goto(`${base}${link.path}`);
    const sco = page.frameLocator('iframe.sco');
    await sco.locator('#status').filter({ hasText: 'connected' }).waitFor();
    equal(`SCORM ${version} of another tool: the SCO found our runtime and the learner`, await sco.locator('#status').textContent(), 'connected as Grace Golfer');
    // The SCO runs in an opaque origin: no cookies of ours, no reach into the player.
    const frame = page.frames().find(f => f.url().includes('/v1/embed/scorm/'));
    const isolation = await frame.evaluate(() => {
      let parentReachable = true, cookies = 'readable';
      try { void window.parent.document.body; } catch (e) { parentReachable = false; }
      try { void document.cookie; } catch (e) { cookies = 'blocked'; }
      return { origin: self.origin, parentReachable, cookies };
    });
    equal(`SCORM ${version} of another tool: the SCO is isolated in an opaque origin`, isolation, { origin: 'null', parentReachable: false, cookies: 'blocked' });
    // The runtime keeps the edition's data model and error codes.
    const calls = await frame.evaluate(v => {
      if (v === '1.2') {
        const a = window.API;
        return [a.LMSGetValue('cmi.core.student_id'), a.LMSSetValue('cmi.core.student_id', 'x'), a.LMSGetLastError(),
          a.LMSGetValue('cmi.core.exit'), a.LMSGetLastError(), a.LMSSetValue('cmi.core.lesson_status', 'done'), a.LMSGetLastError(),
          a.LMSGetValue('cmi.nope'), a.LMSGetLastError(), a.LMSGetValue('cmi.core.lesson_mode'), a.LMSGetValue('cmi.student_data.mastery_score'),
          a.LMSInitialize(''), a.LMSGetLastError(), a.LMSGetErrorString('403')];
      }
      const a = window.API_1484_11;
      return [a.GetValue('cmi.learner_id'), a.SetValue('cmi.learner_id', 'x'), a.GetLastError(), a.GetValue('cmi.exit'), a.GetLastError(),
        a.SetValue('cmi.completion_status', 'done'), a.GetLastError(), a.SetValue('cmi.score.scaled', '2'), a.GetLastError(),
        a.GetValue('cmi.location'), a.GetLastError(), a.GetValue('cmi.scaled_passing_score'), a.Initialize(''), a.GetLastError(),
        a.GetErrorString('403')];
    }, version);
    equal(`SCORM ${version} of another tool: the runtime's data model and error codes`, calls, version === '1.2'
      ? ['golfer-1', 'false', '403', '', '404', 'false', '405', '', '401', 'normal', '70', 'false', '101', 'Element is read only']
      : ['golfer-1', 'false', '404', '', '405', 'false', '406', 'false', '407', '', '403', '0.7', 'false', '103', 'Data model element value not initialized']);
    await sco.locator('#pass').click();
    await page.locator('#score').waitFor();
    equal(`SCORM ${version} of another tool: the player shows the SCO's score`, await page.locator('#score').textContent(), 'Your score: 85%');
    equal(`SCORM ${version} of another tool: no script errors`, errors, []);
    await page.close();
    const completions = await api('GET', '/v1/completions?limit=1000');
    const mine = completions.data.filter(c => c.courseId === imported.id);
    equal(`SCORM ${version} of another tool: completion, score and suspend data reach /v1/completions`,
      mine.map(c => [c.score, c.passed, c.scorm[block.id].completionStatus, c.scorm[block.id].successStatus, c.scorm[block.id].suspendData]),
      [[85, true, 'completed', 'passed', 'hole=18']]);
    // The next opening resumes where the SCO suspended.
    const again = await browser2.newPage();
    await again.goto(`${base}${link.path}`);
    const resumed = again.frameLocator('iframe.sco').locator('#status');
    await resumed.filter({ hasText: 'connected' }).waitFor();
    equal(`SCORM ${version} of another tool: a second opening resumes from the suspend data`, await resumed.textContent(), 'connected as Grace Golfer, resumed at hole=18');
    await again.close();
  }
  await browser2.close();
}


// --- 5. the error table over HTTP --------------------------------------------------
async function call(method, path, { auth = key, body, raw } = {}) {
  const headers = auth ? { authorization: `Bearer ${auth}` } : {};
  const res = await fetch(base + path, { method, headers, body: raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  let json = null;
  try { json = JSON.parse(text); } catch { /* not JSON */ }
  return { status: res.status, json, headers: res.headers };
}
const row = (r) => [r.status, r.json && r.json.error, typeof (r.json && r.json.message)];
equal('errors: no key is 401 unauthorized', row(await call('GET', '/v1/courses', { auth: null })), [401, 'unauthorized', 'string']);
equal('errors: a wrong key is 401 unauthorized', row(await call('GET', '/v1/courses', { auth: 'sk_live_wrong' })), [401, 'unauthorized', 'string']);
equal('errors: a read-only key may read', (await call('GET', '/v1/courses', { auth: readOnlyKey })).status, 200);
equal('errors: a read-only key writing is 403 insufficient_scope', row(await call('POST', '/v1/courses', { auth: readOnlyKey, body: { title: 'x' } })), [403, 'insufficient_scope', 'string']);
const planRequired = await call('POST', '/v1/generate', { auth: sandboxKey, body: { prompt: 'Fire safety' } });
equal('errors: a feature above the plan is 403 plan_required', row(planRequired), [403, 'plan_required', 'string']);
check('errors: ... and the message names the plan', /Build/.test(planRequired.json.message), planRequired.json.message);
equal('errors: another workspace\'s course is 404 not_found', row(await call('GET', `/v1/courses/${course.id}`, { auth: sandboxKey })), [404, 'not_found', 'string']);
await api('POST', `/v1/courses/${course.id}/unpublish`, {});
const draft = await call('GET', `/v1/embed/${course.id}`, { auth: null });
const missing = await call('GET', '/v1/embed/crs_missing', { auth: null });
equal('errors: a draft\'s embed link is 404 like a missing course', [draft.status, draft.json], [404, missing.json]);
const invalid = await call('POST', '/v1/courses', { body: { title: 'T', screens: [{ blocks: [{ type: 'stack', stackCards: Array(11).fill({ front: 'f' }) }] }] } });
equal('errors: 11 stack cards is 400 invalid_request with the path', [invalid.status, invalid.json.error, invalid.json.issues.map(i => i.path)], [400, 'invalid_request', [['screens', '0', 'blocks', '0', 'stackCards']]]);
// The server answers 413 as soon as the declared length is too large, without
// reading the body. The upload asks `Expect: 100-continue` and sends the body
// only if the server asks for it, so no write races the server's close (a
// body written while the server closes fails with EPIPE, and a socket error
// nobody listens to ends node). fetch cannot wait for 100 Continue, hence
// node:http, on a socket of its own whose errors are all listened to.
function oversizedUpload(path, bytes) {
  return new Promise((resolve, reject) => {
    const url = new URL(base + path);
    let answered = false;
    const req = httpRequest({
      hostname: url.hostname, port: url.port, path: url.pathname, method: 'POST', agent: false,
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/zip', 'content-length': bytes, expect: '100-continue' },
    }, (res) => {
      answered = true;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => {
        let json = null;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, json, headers: new Headers(res.headers) });
      });
      res.on('error', () => {});
    });
    req.on('socket', (socket) => socket.on('error', () => {}));
    // A broken write is expected; only a connection that never answers fails.
    req.on('error', (err) => setTimeout(() => { if (!answered) reject(err); }, 3000));
    const chunk = Buffer.alloc(1 << 20);
    let sent = 0;
    const pump = () => {
      while (sent < bytes && !answered) {
        const n = Math.min(chunk.length, bytes - sent);
        sent += n;
        if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n))) { req.once('drain', pump); return; }
      }
      req.end();
    };
    req.on('continue', pump);
  });
}
const big = await oversizedUpload('/v1/courses/import/scorm', 100_000_001);
equal('errors: a SCORM package over 100 MB (100,000,000 bytes) is 413 payload_too_large', row(big), [413, 'payload_too_large', 'string']);
let limited = null;
for (let i = 0; i < 130 && !limited; i++) {
  const r = await call('GET', '/v1/usage', { auth: readOnlyKey });
  if (r.status === 429) limited = r;
}
check('errors: past 120 requests a minute, 429 rate_limited', limited && limited.json.error === 'rate_limited', limited && limited.status);
check('errors: ... with Retry-After in seconds', limited && /^[0-9]+$/.test(limited.headers.get('retry-after') || ''), limited && limited.headers.get('retry-after'));

// --- 4. the completion reached the receiver, signed --------------------------------
// (The imported SCORM courses' completions reach the receiver too; the
// quiz course's is the one checked here.)
const quizHooks = () => hooks.filter(h => JSON.parse(h.body).data.courseId === course.id);
for (let i = 0; i < 100 && quizHooks().length === 0; i++) await new Promise(r => setTimeout(r, 100));
receiver.close();
equal('webhooks: one message for the one completion', quizHooks().map(h => [h.path, JSON.parse(h.body).type]), [['/hooks/courses', 'completion.created']]);
if (quizHooks().length === 1) {
  const h = quizHooks()[0];
  const secret = Buffer.from(webhook.secret.replace(/^whsec_/, ''), 'base64');
  const expected = 'v1,' + createHmac('sha256', secret).update(`${h.headers['webhook-id']}.${h.headers['webhook-timestamp']}.${h.body}`).digest('base64');
  equal('webhooks: the signature verifies with the secret', h.headers['webhook-signature'], expected);
  equal('webhooks: the payload names the learner\'s score', JSON.parse(h.body).data.score, 100);
  const deliveries = await api('GET', `/v1/webhook-deliveries?webhookId=${webhook.id}`);
  equal('webhooks: the delivery record', deliveries.data.filter(d => d.id === h.headers['webhook-id']).map(d => [d.status, d.attempts, d.responseStatus]), [['delivered', 1, 204]]);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
