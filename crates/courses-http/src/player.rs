//! The public embed: the learner-facing player of a published course, and
//! the two calls it makes (record the completion, get the certificate). The
//! view id handed to the page is the capability for those calls; no API key
//! is ever sent to a browser.

use axum::Json;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use crate::AppState;
use crate::error::ApiError;
use crate::extract::{EmbedClient, JsonBody, query_param};
use crate::wire;
use courses_core::embed_links::EmbedParams;

/// `GET /v1/embed/{courseId}?learner=<externalId>&expires=<unix secs>&signature=<hex>&lang=<locale>`:
/// a signed link opens the course for its learner and counts one course
/// view; without `learner` it is an anonymous preview (one view per visitor
/// per day, nothing recorded); `lang` applies the course's translation.
pub async fn open(
    State(s): State<AppState>,
    client: EmbedClient,
    Path(course_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    open_as(s, client, course_id, query, false).await
}

/// `GET /v1/embed/{courseId}/session`: the page's data as JSON, opened and
/// counted exactly like the page.
pub async fn session(
    State(s): State<AppState>,
    client: EmbedClient,
    Path(course_id): Path<String>,
    RawQuery(query): RawQuery,
) -> Result<Response, ApiError> {
    open_as(s, client, course_id, query, true).await
}

async fn open_as(
    s: AppState,
    EmbedClient(client): EmbedClient,
    course_id: String,
    query: Option<String>,
    as_json: bool,
) -> Result<Response, ApiError> {
    let link = EmbedParams {
        learner: query_param(query.as_deref(), "learner"),
        expires: query_param(query.as_deref(), "expires"),
        signature: query_param(query.as_deref(), "signature"),
    };
    let lang = query_param(query.as_deref(), "lang");
    check_query(&link, lang.as_deref())?;
    let session = s.courses.open_embed(&course_id, &link, lang.as_deref(), client).await?;
    Ok(player_response(&session, as_json))
}

/// The player for a session: its page, or (`as_json`) the page's data.
pub(crate) fn player_response(session: &courses_core::learners::EmbedSession, as_json: bool) -> Response {
    let course = &session.course;
    let data = json!({
        "viewId": session.view_id,
        "preview": session.view_id.is_none(),
        "locale": session.locale,
        "ui": session.ui,
        "course": {
            "id": course.id,
            "title": session.title,
            "passingScore": course.passing_score,
            "navigation": course.settings.get("navigation"),
            "quizFeedback": course.settings.get("quizFeedback"),
            "direction": course.settings.get("direction"),
            "retry": course.allows_retry(),
            "screens": session.screens,
        },
        "learner": session.identity.as_ref().map(|i| json!({ "id": i.id, "name": i.name, "externalId": i.external_id })),
        "theme": session.theme.as_ref().map(wire::resource),
        "scormState": session.scorm_state,
    });
    if as_json {
        return (StatusCode::OK, [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))], Json(data))
            .into_response();
    }
    let locale: String =
        session.locale.as_deref().unwrap_or("en").chars().filter(|c| c.is_ascii_alphanumeric() || *c == '-').collect();
    let html = PAGE
        .replace("{{lang}}", &locale)
        .replace("{{title}}", &escape_html(&session.title))
        .replace(
            "{{dir}}",
            if course.settings.get("direction").and_then(Value::as_str) == Some("rtl") { "rtl" } else { "ltr" },
        )
        .replace("{{sandbox}}", crate::scorm::SANDBOX)
        .replace("{{data}}", &data.to_string().replace('<', "\\u003c"));
    (
        [
            (header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8")),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
        html,
    )
        .into_response()
}

/// `POST /v1/embed/views/{viewId}/completion`: `{answers}` graded on the server.
pub async fn complete(
    State(s): State<AppState>,
    EmbedClient(_): EmbedClient,
    Path(view): Path<String>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let (completion, review) = s.courses.complete_view(&view, &body).await?;
    let mut body = wire::completion(&completion);
    if let Value::Object(map) = &mut body {
        map.insert("review".to_owned(), Value::Array(review));
    }
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `POST /v1/embed/views/{viewId}/check`: `{blockId, answer}` to `{correct}`,
/// for courses with immediate quiz feedback.
pub async fn check(
    State(s): State<AppState>,
    EmbedClient(_): EmbedClient,
    Path(view): Path<String>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    let correct = s.courses.check_view_answer(&view, &body).await?;
    Ok(Json(json!({ "correct": correct })).into_response())
}

/// `POST /v1/embed/views/{viewId}/scorm`: `{blockId, data}`, what a SCO of
/// the course committed (suspend data, location, status, score), kept for
/// the learner's next opening.
pub async fn save_scorm_state(
    State(s): State<AppState>,
    EmbedClient(_): EmbedClient,
    Path(view): Path<String>,
    JsonBody(body): JsonBody,
) -> Result<Response, ApiError> {
    s.courses.save_view_scorm_state(&view, &body).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// `POST /v1/embed/views/{viewId}/certificate`.
pub async fn certificate(
    State(s): State<AppState>,
    EmbedClient(_): EmbedClient,
    Path(view): Path<String>,
) -> Result<Response, ApiError> {
    let (cert, _) = s.courses.certificate_for_view(&view).await?;
    let mut body = wire::certificate(&cert);
    if let Value::Object(map) = &mut body {
        map.insert("pdfPath".to_owned(), json!(format!("/v1/embed/views/{view}/certificate.pdf")));
    }
    Ok((StatusCode::CREATED, Json(body)).into_response())
}

/// `GET /v1/embed/views/{viewId}/certificate.pdf`.
pub async fn certificate_pdf(
    State(s): State<AppState>,
    EmbedClient(_): EmbedClient,
    Path(view): Path<String>,
) -> Result<Response, ApiError> {
    let (cert, _) = s.courses.certificate_for_view(&view).await?;
    crate::routes::pdf_response(s.courses.certificate_pdf(&cert).await?, &cert.id)
}

/// The link's parameters as documented (a malformed one is a 400 naming
/// it, whether or not the link names a learner).
fn check_query(link: &EmbedParams, lang: Option<&str>) -> Result<(), ApiError> {
    let mut issues = Vec::new();
    let mut bad = |name: &str, ok: bool, message: &str| {
        if !ok {
            issues.push(courses_core::Issue::new("invalid_value", vec![name.to_owned()], message));
        }
    };
    if let Some(learner) = &link.learner {
        bad("learner", !learner.is_empty() && learner.chars().count() <= 200, "learner has 1 to 200 characters");
    }
    if let Some(expires) = &link.expires {
        bad(
            "expires",
            (1..=12).contains(&expires.len()) && expires.bytes().all(|b| b.is_ascii_digit()),
            "expires is Unix seconds (1 to 12 digits)",
        );
    }
    if let Some(signature) = &link.signature {
        bad(
            "signature",
            signature.len() == 64 && signature.bytes().all(|b| b.is_ascii_hexdigit()),
            "signature is 64 hex digits",
        );
    }
    if let Some(lang) = lang {
        bad("lang", lang.chars().count() <= 35, "lang is a locale of at most 35 characters");
    }
    if issues.is_empty() { Ok(()) } else { Err(courses_core::CoursesError::invalid(issues).into()) }
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

const PAGE: &str = r#"<!doctype html>
<html lang="{{lang}}" dir="{{dir}}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title>
<style>
  :root { --accent: #2f4f8f; }
  body { font-family: system-ui, sans-serif; margin: 0; background: #f4f5f8; color: #1d2330; }
  main { max-width: 720px; margin: 2rem auto; background: #fff; border-radius: 12px; padding: 2rem; box-shadow: 0 2px 12px #0001; }
  .progress { height: 6px; background: #e3e6ee; border-radius: 3px; margin-bottom: 1.5rem; }
  .progress > div { height: 100%; background: var(--accent); border-radius: 3px; transition: width .2s; }
  .block { margin: 1rem 0; }
  .card { border: 1px solid #d6dae4; border-radius: 8px; padding: .75rem 1rem; margin: .5rem 0; }
  .option { display: block; margin: .35rem 0; }
  nav { display: flex; justify-content: space-between; margin-top: 2rem; }
  button { background: var(--accent); color: #fff; border: 0; border-radius: 6px; padding: .6rem 1.2rem; font-size: 1rem; cursor: pointer; }
  button[disabled] { opacity: .4; cursor: default; }
  img, video { max-width: 100%; }
  iframe.sco { width: 100%; height: 70vh; min-height: 420px; border: 1px solid #d6dae4; border-radius: 8px; background: #fff; }
  .result { font-size: 1.2rem; }
  #logo { display: block; max-height: 56px; max-width: 240px; margin: 1.5rem auto 0; }
</style>
</head>
<body>
<main id="player" aria-live="polite"></main>
<script id="course-data" type="application/json">{{data}}</script>
<script>
(function () {
  const data = JSON.parse(document.getElementById('course-data').textContent);
  const course = data.course;
  const screens = course.screens || [];
  const answers = {};
  let index = 0;
  const root = document.getElementById('player');
  const ui = Object.assign({ back: 'Back', continue: 'Continue', finish: 'Finish', score: 'Your score:', completed: 'Completed.',
    passed: 'You passed.', failed: 'You did not reach the passing score of {passingScore}%.', certificate: 'Download your certificate (PDF)',
    retry: 'Try again', oneAttempt: 'This course allows one attempt.', true: 'True', false: 'False', correct: 'Correct.', incorrect: 'Not quite.' }, data.ui || {});
  if (data.theme && data.theme.accentColor) document.documentElement.style.setProperty('--accent', data.theme.accentColor);
  // The theme's uploaded font and logo (files served at /v1/embed/media/).
  const media = (id) => '/v1/embed/media/' + encodeURIComponent(id);
  if (data.theme && typeof data.theme.fontMediaId === 'string' && window.FontFace) {
    new FontFace('course-font', 'url(' + media(data.theme.fontMediaId) + ')').load()
      .then((face) => { document.fonts.add(face); document.body.style.fontFamily = "'course-font', system-ui, sans-serif"; })
      .catch(() => {});
  }
  if (data.theme && typeof data.theme.logoMediaId === 'string') {
    const logo = document.createElement('img');
    logo.id = 'logo';
    logo.alt = '';
    logo.src = media(data.theme.logoMediaId);
    const player = document.getElementById('player');
    player.parentNode.insertBefore(logo, player);
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  async function feedback(block, box) {
    if (course.quizFeedback !== 'immediate' || !data.viewId) return;
    const res = await fetch('/v1/embed/views/' + data.viewId + '/check', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ blockId: block.id, answer: answers[block.id] }) });
    if (!res.ok) return;
    const result = await res.json();
    let note = box.querySelector('.feedback');
    if (!note) { note = el('p', { class: 'feedback' }); box.appendChild(note); }
    note.textContent = result.correct ? ui.correct : ui.incorrect;
  }

  function renderBlock(block) {
    const box = el('div', { class: 'block', 'data-block-id': block.id, 'data-type': block.type });
    switch (block.type) {
      case 'heading': box.appendChild(el('h2', {}, block.text)); break;
      case 'text': box.appendChild(el('p', {}, block.text)); break;
      case 'quote': box.appendChild(el('blockquote', {}, block.text + (block.attribution ? ' - ' + block.attribution : ''))); break;
      case 'image': box.appendChild(el('img', { src: block.url, alt: block.alt || '' })); break;
      case 'video': box.appendChild(el('video', { src: block.url, controls: '' })); break;
      case 'audio': {
        box.appendChild(el('audio', { src: block.url, controls: '' }));
        if (block.transcript) box.appendChild(el('p', { class: 'transcript' }, block.transcript));
        break;
      }
      case 'list': { const ul = el('ul'); (block.items || []).forEach(i => ul.appendChild(el('li', {}, i))); box.appendChild(ul); break; }
      case 'button': { const b = el('button', { type: 'button' }, block.label); b.onclick = next; box.appendChild(b); break; }
      case 'divider': box.appendChild(el('hr')); break;
      case 'scorm': box.appendChild(scoFrame(block)); break;
      case 'stack': (block.stackCards || []).forEach(card => {
        const c = el('div', { class: 'card' }); c.appendChild(el('strong', {}, card.front));
        if (card.back) c.appendChild(el('p', {}, card.back)); box.appendChild(c); }); break;
      case 'multiple_choice':
      case 'multiple_response': {
        box.appendChild(el('p', {}, block.question));
        const multi = block.type === 'multiple_response';
        (block.options || []).forEach((opt, i) => {
          const label = el('label', { class: 'option' });
          const input = el('input', { type: multi ? 'checkbox' : 'radio', name: block.id, value: String(i) });
          input.checked = multi ? (answers[block.id] || []).includes(i) : answers[block.id] === i;
          input.onchange = () => {
            if (multi) {
              const set = new Set(answers[block.id] || []);
              input.checked ? set.add(i) : set.delete(i);
              answers[block.id] = [...set].sort((a, b) => a - b);
            } else { answers[block.id] = i; }
            feedback(block, box);
          };
          label.appendChild(input); label.appendChild(document.createTextNode(' ' + opt)); box.appendChild(label);
        });
        break;
      }
      case 'true_false': {
        box.appendChild(el('p', {}, block.statement));
        [[ui.true, true], [ui.false, false]].forEach(([text, value]) => {
          const label = el('label', { class: 'option' });
          const input = el('input', { type: 'radio', name: block.id, value: String(value) });
          input.checked = answers[block.id] === value;
          input.onchange = () => { answers[block.id] = value; feedback(block, box); };
          label.appendChild(input); label.appendChild(document.createTextNode(' ' + text)); box.appendChild(label);
        });
        break;
      }
      default: break; // unknown blocks render nothing
    }
    return box;
  }

  // Imported SCORM content: each SCO runs in a sandboxed frame (an opaque
  // origin: no access to this page or the service's origin) with the
  // runtime the service adds to its pages. What the SCO reports arrives by
  // postMessage, only from the frame on screen, and becomes the block's
  // answer; commits are saved for the learner's next visit.
  const scorm = Object.assign({}, data.scormState || {});
  Object.keys(scorm).forEach(id => { answers[id] = scorm[id]; });
  const keep = ['cmi.core.lesson_status', 'cmi.core.lesson_location', 'cmi.core.score.raw', 'cmi.core.score.min', 'cmi.core.score.max',
    'cmi.core.exit', 'cmi.suspend_data', 'cmi.completion_status', 'cmi.success_status', 'cmi.location', 'cmi.score.scaled',
    'cmi.score.raw', 'cmi.score.min', 'cmi.score.max', 'cmi.exit', 'cmi.progress_measure'];
  function scoFrame(block) {
    const init = { v: block.scormVersion, block: block.id, mastery: typeof block.masteryScore === 'number' ? block.masteryScore : null,
      launchData: block.launchData || '', completionThreshold: block.completionThreshold, mode: data.viewId ? 'normal' : 'browse',
      learner: data.learner ? { id: data.learner.externalId, name: data.learner.name || data.learner.externalId } : {},
      state: scorm[block.id] || {} };
    const frame = el('iframe', { class: 'sco', title: block.title || course.title, sandbox: '{{sandbox}}',
      src: '/v1/embed/scorm/' + encodeURIComponent(block.packageId) + '/' + block.launch, 'data-block-id': block.id });
    frame.name = 'svc-scorm:' + JSON.stringify(init);
    return frame;
  }
  function scoDone(cmi) {
    return ['completed', 'passed', 'failed'].includes(cmi['cmi.core.lesson_status']) || cmi['cmi.completion_status'] === 'completed'
      || ['passed', 'failed'].includes(cmi['cmi.success_status']);
  }
  window.addEventListener('message', event => {
    const frame = root.querySelector('iframe.sco');
    const message = event.data;
    if (!frame || event.source !== frame.contentWindow || !message || message.svcScorm !== 1 || typeof message.cmi !== 'object') return;
    const id = frame.getAttribute('data-block-id');
    const cmi = {};
    keep.forEach(k => { if (typeof message.cmi[k] === 'string') cmi[k] = message.cmi[k]; });
    scorm[id] = cmi;
    answers[id] = cmi;
    if (data.viewId && (message.op === 'commit' || message.op === 'finish')) {
      fetch('/v1/embed/views/' + data.viewId + '/scorm', { method: 'POST', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ blockId: id, data: cmi }) }).catch(() => {});
    }
    if (message.op === 'finish') {
      const nav = message.cmi['adl.nav.request'];
      if (nav === 'previous' && index > 0) { index--; render(); }
      else if (nav === 'continue' || scoDone(cmi)) next();
    }
  });

  function render() {
    root.innerHTML = '';
    root.appendChild(el('h1', {}, course.title));
    const bar = el('div', { class: 'progress' }); const fill = el('div');
    fill.style.width = (screens.length ? Math.round(100 * (index + 1) / screens.length) : 100) + '%';
    bar.appendChild(fill); root.appendChild(bar);
    const screen = screens[index];
    if (screen) {
      const section = el('section', { 'data-screen-id': screen.id });
      if (screen.title) section.appendChild(el('h2', {}, screen.title));
      (screen.blocks || []).forEach(b => section.appendChild(renderBlock(b)));
      root.appendChild(section);
    }
    if (course.navigation !== 'hidden') {
      const nav = el('nav');
      const back = el('button', { id: 'back', type: 'button' }, ui.back); back.disabled = index === 0; back.onclick = () => { index--; render(); };
      const last = index >= screens.length - 1;
      const fwd = el('button', { id: last ? 'finish' : 'continue', type: 'button' }, last ? ui.finish : ui.continue);
      fwd.onclick = next;
      nav.appendChild(back); nav.appendChild(fwd); root.appendChild(nav);
    }
  }

  function next() {
    if (index < screens.length - 1) { index++; render(); } else { finish(); }
  }

  async function finish() {
    root.innerHTML = '';
    root.appendChild(el('h1', {}, course.title));
    if (!data.viewId) { root.appendChild(el('p', { class: 'result', id: 'preview' }, 'Preview finished. Nothing was recorded: open the course with a signed learner link to record your completion.')); return; }
    const res = await fetch('/v1/embed/views/' + data.viewId + '/completion', {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ answers }) });
    const completion = await res.json();
    if (!res.ok) { root.appendChild(el('p', { class: 'result' }, completion.message || 'Could not record the completion.')); return; }
    const scoreText = completion.score === null ? ui.completed : ui.score + ' ' + completion.score + '%';
    root.appendChild(el('p', { class: 'result', id: 'score' }, scoreText));
    root.appendChild(el('p', { id: 'outcome' }, completion.passed ? ui.passed : ui.failed.replace('{passingScore}', String(course.passingScore))));
    if (course.passingScore !== null && course.passingScore !== undefined) {
      root.appendChild(el('p', { id: 'passing' }, (ui.passingScore || 'Passing score:') + ' ' + course.passingScore + '%'));
    }
    if (Array.isArray(completion.review) && completion.review.length) {
      const list = el('ol', { id: 'review' });
      for (const item of completion.review) {
        const li = el('li', { class: item.correct ? 'right' : 'wrong' });
        li.appendChild(el('p', {}, item.question));
        li.appendChild(el('p', {}, (ui.yourAnswer || 'Your answer:') + ' ' + (item.yourAnswer || '—') + ' · ' + (item.correct ? ui.correct : ui.incorrect)));
        if (!item.correct) li.appendChild(el('p', {}, (ui.rightAnswer || 'Right answer:') + ' ' + (item.rightAnswer || '')));
        if (item.feedback) li.appendChild(el('p', { class: 'feedback' }, item.feedback));
        list.appendChild(li);
      }
      root.appendChild(list);
    }
    if (completion.passed) {
      const cert = await fetch('/v1/embed/views/' + data.viewId + '/certificate', { method: 'POST' });
      if (cert.ok) {
        const body = await cert.json();
        const link = el('a', { id: 'certificate', href: body.pdfPath, target: '_blank' }, ui.certificate);
        root.appendChild(link);
      }
    } else if (course.retry === false) {
      root.appendChild(el('p', { id: 'one-attempt' }, ui.oneAttempt));
    } else {
      const retry = el('button', { id: 'retry', type: 'button' }, ui.retry);
      retry.onclick = () => { index = 0; render(); };
      root.appendChild(retry);
    }
  }

  // The studio's live preview: an edit not yet saved, checked by the server
  // and sent by the studio page that frames this player (same origin only).
  if (data.preview) {
    window.addEventListener('message', (event) => {
      const m = event.data;
      if (event.origin !== location.origin || event.source !== window.parent || !m || m.kind !== 'svc-draft') return;
      if (typeof m.screenIndex !== 'number' || !m.screen || m.screenIndex < 0 || m.screenIndex >= screens.length) return;
      screens[m.screenIndex] = m.screen;
      index = m.screenIndex;
      render();
    });
  }

  render();
})();
</script>
</body>
</html>
"#;
