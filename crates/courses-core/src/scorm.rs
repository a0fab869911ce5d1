//! SCORM export: a course as a SCORM 1.2 or SCORM 2004 (4th edition)
//! package with one SCO. The package holds `imsmanifest.xml` at the zip
//! root, a self-contained `index.html` player that talks to the LMS's
//! runtime (`window.API` or `window.API_1484_11`, found by walking parent
//! frames and the opener), and `course.json`, the course document the
//! service can import again. The zip is written by hand with stored
//! (uncompressed) entries: small, dependency-free and readable by any LMS.

use serde_json::{Value, json};

use crate::model::Course;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScormVersion {
    Scorm12,
    Scorm2004,
}

impl crate::Courses {
    /// A course as a SCORM package (Scale and up over the API).
    pub async fn export_scorm(
        &self,
        access: &crate::Access,
        course_id: &str,
        version: ScormVersion,
    ) -> crate::CoursesResult<(Course, Vec<u8>)> {
        self.require(access, crate::Feature::ScormApi)?;
        self.package_scorm(access, course_id, version).await
    }

    /// SCORM export from the studio: every plan has it (the seed's "SCORM
    /// export from the dashboard"), for any member of the workspace.
    pub async fn studio_export_scorm(
        &self,
        me: &crate::members::SignedIn,
        course_id: &str,
        version: ScormVersion,
    ) -> crate::CoursesResult<(Course, Vec<u8>)> {
        self.package_scorm(&me.access, course_id, version).await
    }

    async fn package_scorm(
        &self,
        access: &crate::Access,
        course_id: &str,
        version: ScormVersion,
    ) -> crate::CoursesResult<(Course, Vec<u8>)> {
        let course = self.course(access, course_id).await?;
        // Our package's player cannot host another tool's SCOs; the author
        // still has the package they imported.
        if crate::content::blocks(&course.screens).any(|b| b.get("type").and_then(Value::as_str) == Some("scorm")) {
            return Err(crate::CoursesError::field(
                &["screens"],
                crate::issues::code::INVALID_VALUE,
                "a course that plays the SCOs of an imported package cannot be exported as a new package",
            ));
        }
        let theme = self.applied_theme(access, &course).await?;
        let mut files = Vec::new();
        if let Some(theme) = &theme {
            for (field, name) in [("fontMediaId", "font"), ("logoMediaId", "logo")] {
                if let Some((media, bytes)) = self.theme_file(&access.workspace.id, theme, field).await? {
                    let ext = media.content_type.rsplit('/').next().unwrap_or("bin").replace("jpeg", "jpg");
                    files.push(ThemeFile { role: name, path: format!("theme/{name}.{ext}"), bytes: bytes.to_vec() });
                }
            }
        }
        let zip = export_with_files(&course, version, theme.as_ref(), &files);
        Ok((course, zip))
    }
}

impl crate::Courses {
    /// A file a theme names in `field` (`fontMediaId`, `logoMediaId`) with
    /// its bytes, when it is an upload of the workspace that still exists.
    pub(crate) async fn theme_file(
        &self,
        workspace_id: &str,
        theme: &crate::Resource,
        field: &str,
    ) -> crate::CoursesResult<Option<(crate::media::Media, bytes::Bytes)>> {
        let Some(id) = theme.data.get(field).and_then(Value::as_str) else { return Ok(None) };
        let Some(media) = self.store.media_by_id(id).await?.filter(|m| m.workspace_id == workspace_id) else {
            return Ok(None);
        };
        let bytes = self
            .blobs
            .get(&media.sha256)
            .await
            .map_err(|e| crate::CoursesError::Internal(format!("reading a theme file failed: {e}")))?;
        Ok(bytes.map(|b| (media, b)))
    }

    /// The course's theme when the workspace's plan has themes (else none:
    /// a downgraded workspace exports the original look, as its player
    /// shows it).
    pub async fn applied_theme(
        &self,
        access: &crate::Access,
        course: &Course,
    ) -> crate::CoursesResult<Option<crate::Resource>> {
        match &course.theme_id {
            Some(id) if access.workspace.plan.allows(crate::Feature::Themes) => {
                Ok(self.store.resource(&access.workspace.id, crate::ResourceKind::Theme, id).await?)
            }
            _ => Ok(None),
        }
    }
}

impl ScormVersion {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "1.2" | "scorm12" | "scorm_12" => Some(Self::Scorm12),
            "2004" | "scorm2004" | "scorm_2004" | "2004-4" => Some(Self::Scorm2004),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Scorm12 => "1.2",
            Self::Scorm2004 => "2004",
        }
    }
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&apos;")
}

pub fn manifest(course: &Course, version: ScormVersion) -> String {
    let title = xml_escape(&course.title);
    let id = xml_escape(&course.id);
    let mastery = course.passing_score.map(|p| p.to_string());
    match version {
        ScormVersion::Scorm12 => format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="{id}" version="1.0"
  xmlns="http://www.imsproject.org/xsd/imscp_rootv1p1p2"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_rootv1p2"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsproject.org/xsd/imscp_rootv1p1p2 imscp_rootv1p1p2.xsd http://www.imsglobal.org/xsd/imsmd_rootv1p2p1 imsmd_rootv1p2p1.xsd http://www.adlnet.org/xsd/adlcp_rootv1p2 adlcp_rootv1p2.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>1.2</schemaversion>
  </metadata>
  <organizations default="ORG">
    <organization identifier="ORG">
      <title>{title}</title>
      <item identifier="ITEM" identifierref="RES" isvisible="true">
        <title>{title}</title>{mastery12}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="RES" type="webcontent" adlcp:scormtype="sco" href="index.html">
      <file href="index.html"/>
      <file href="course.json"/>
    </resource>
  </resources>
</manifest>
"#,
            mastery12 = mastery.as_ref().map(|m| format!("\n        <adlcp:masteryscore>{m}</adlcp:masteryscore>")).unwrap_or_default(),
        ),
        ScormVersion::Scorm2004 => format!(
            r#"<?xml version="1.0" encoding="UTF-8"?>
<manifest identifier="{id}" version="1.0"
  xmlns="http://www.imsglobal.org/xsd/imscp_v1p1"
  xmlns:adlcp="http://www.adlnet.org/xsd/adlcp_v1p3"
  xmlns:adlseq="http://www.adlnet.org/xsd/adlseq_v1p3"
  xmlns:adlnav="http://www.adlnet.org/xsd/adlnav_v1p3"
  xmlns:imsss="http://www.imsglobal.org/xsd/imsss"
  xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://www.imsglobal.org/xsd/imscp_v1p1 imscp_v1p1.xsd http://www.adlnet.org/xsd/adlcp_v1p3 adlcp_v1p3.xsd http://www.adlnet.org/xsd/adlseq_v1p3 adlseq_v1p3.xsd http://www.adlnet.org/xsd/adlnav_v1p3 adlnav_v1p3.xsd http://www.imsglobal.org/xsd/imsss imsss_v1p0.xsd">
  <metadata>
    <schema>ADL SCORM</schema>
    <schemaversion>2004 4th Edition</schemaversion>
  </metadata>
  <organizations default="ORG">
    <organization identifier="ORG">
      <title>{title}</title>
      <item identifier="ITEM" identifierref="RES" isvisible="true">
        <title>{title}</title>{mastery2004}
      </item>
    </organization>
  </organizations>
  <resources>
    <resource identifier="RES" type="webcontent" adlcp:scormType="sco" href="index.html">
      <file href="index.html"/>
      <file href="course.json"/>
    </resource>
  </resources>
</manifest>
"#,
            mastery2004 = course
                .passing_score
                .map(|p| {
                    let scaled = f64::from(i32::try_from(p).unwrap_or(0)) / 100.0;
                    format!(
                        "\n        <imsss:sequencing>\n          <imsss:objectives>\n            <imsss:primaryObjective objectiveID=\"PRIMARY\" satisfiedByMeasure=\"true\">\n              <imsss:minNormalizedMeasure>{scaled}</imsss:minNormalizedMeasure>\n            </imsss:primaryObjective>\n          </imsss:objectives>\n        </imsss:sequencing>"
                    )
                })
                .unwrap_or_default(),
        ),
    }
}

/// The course document carried in the package (and read back on import).
pub fn course_document(course: &Course) -> Value {
    let mut doc = json!({
        "title": course.title,
        "passingScore": course.passing_score,
        "screens": course.screens,
        "sourceKind": "scorm",
        "exportedFrom": course.id,
    });
    if let Value::Object(map) = &mut doc {
        for (k, v) in &course.settings {
            map.insert(k.clone(), v.clone());
        }
    }
    doc
}

pub fn player(course: &Course, version: ScormVersion) -> String {
    player_themed(course, version, None)
}

/// The package's player with the theme's accent colour (set through the
/// CSS object model from the data, so no theme value is ever parsed as
/// markup or CSS).
pub fn player_themed(course: &Course, version: ScormVersion, theme: Option<&crate::Resource>) -> String {
    let accent = theme.and_then(|t| t.data.get("accentColor")).and_then(Value::as_str);
    let data =
        json!({ "version": version.as_str(), "course": course_document(course), "theme": { "accentColor": accent } });
    PLAYER
        .replace("{{title}}", &xml_escape(&course.title))
        .replace("{{data}}", &data.to_string().replace('<', "\\u003c"))
}

/// The package as zip bytes.
pub fn export(course: &Course, version: ScormVersion) -> Vec<u8> {
    export_themed(course, version, None)
}

/// The package with the theme applied to its player.
pub fn export_themed(course: &Course, version: ScormVersion, theme: Option<&crate::Resource>) -> Vec<u8> {
    export_with_files(course, version, theme, &[])
}

/// A theme's uploaded file carried in a package: `role` is `font` or
/// `logo`, `path` its place in the package (`theme/font.woff2`).
pub struct ThemeFile {
    pub role: &'static str,
    pub path: String,
    pub bytes: Vec<u8>,
}

/// The package with the theme and its font and logo files: the files are
/// listed in the manifest's resource and the player loads them by their
/// relative paths, so the package needs nothing from this service.
pub fn export_with_files(
    course: &Course,
    version: ScormVersion,
    theme: Option<&crate::Resource>,
    files: &[ThemeFile],
) -> Vec<u8> {
    let course_json = serde_json::to_vec_pretty(&course_document(course)).unwrap_or_default();
    let listed: String = files.iter().map(|f| format!("\n      <file href=\"{}\"/>", xml_escape(&f.path))).collect();
    let manifest = manifest(course, version).replacen(
        "<file href=\"course.json\"/>",
        &format!("<file href=\"course.json\"/>{listed}"),
        1,
    );
    let mut player = player_themed(course, version, theme);
    if !files.is_empty() {
        let paths: serde_json::Map<String, Value> =
            files.iter().map(|f| (f.role.to_owned(), Value::String(f.path.clone()))).collect();
        player = player.replacen(
            "<script id=\"course-data\"",
            &format!(
                "<script id=\"theme-files\" type=\"application/json\">{}</script>\n<script id=\"course-data\"",
                Value::Object(paths).to_string().replace('<', "\\u003c")
            ),
            1,
        );
    }
    let mut entries: Vec<(&str, Vec<u8>)> = vec![
        ("imsmanifest.xml", manifest.into_bytes()),
        ("index.html", player.into_bytes()),
        ("course.json", course_json),
    ];
    for file in files {
        entries.push((file.path.as_str(), file.bytes.clone()));
    }
    zip_stored(&entries)
}

fn crc32(data: &[u8]) -> u32 {
    let mut table = [0_u32; 256];
    for (i, slot) in (0_u32..).zip(table.iter_mut()) {
        let mut c = i;
        for _ in 0..8 {
            c = if c & 1 == 1 { 0xEDB8_8320 ^ (c >> 1) } else { c >> 1 };
        }
        *slot = c;
    }
    let mut crc = 0xFFFF_FFFF_u32;
    for byte in data {
        let index = usize::from(u8::try_from((crc ^ u32::from(*byte)) & 0xFF).unwrap_or(0));
        crc = table.get(index).copied().unwrap_or(0) ^ (crc >> 8);
    }
    !crc
}

/// A zip archive of stored entries (no compression), as every unzip reads.
pub fn zip_stored(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    // 1980-01-01 00:00, the zip epoch.
    const DOS_TIME: u16 = 0;
    const DOS_DATE: u16 = (1 << 5) | 1;
    let mut out = Vec::new();
    let mut central = Vec::new();
    let le16 = |v: &mut Vec<u8>, x: u16| v.extend_from_slice(&x.to_le_bytes());
    let le32 = |v: &mut Vec<u8>, x: u32| v.extend_from_slice(&x.to_le_bytes());
    for (name, data) in entries {
        let offset = u32::try_from(out.len()).unwrap_or(u32::MAX);
        let crc = crc32(data);
        let size = u32::try_from(data.len()).unwrap_or(u32::MAX);
        let name_len = u16::try_from(name.len()).unwrap_or(u16::MAX);
        le32(&mut out, 0x0403_4b50);
        le16(&mut out, 20);
        le16(&mut out, 0x0800); // UTF-8 names
        le16(&mut out, 0); // stored
        le16(&mut out, DOS_TIME);
        le16(&mut out, DOS_DATE);
        le32(&mut out, crc);
        le32(&mut out, size);
        le32(&mut out, size);
        le16(&mut out, name_len);
        le16(&mut out, 0);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);

        le32(&mut central, 0x0201_4b50);
        le16(&mut central, 20);
        le16(&mut central, 20);
        le16(&mut central, 0x0800);
        le16(&mut central, 0);
        le16(&mut central, DOS_TIME);
        le16(&mut central, DOS_DATE);
        le32(&mut central, crc);
        le32(&mut central, size);
        le32(&mut central, size);
        le16(&mut central, name_len);
        le16(&mut central, 0);
        le16(&mut central, 0);
        le16(&mut central, 0);
        le16(&mut central, 0);
        le32(&mut central, 0);
        le32(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let central_offset = u32::try_from(out.len()).unwrap_or(u32::MAX);
    let central_size = u32::try_from(central.len()).unwrap_or(u32::MAX);
    let count = u16::try_from(entries.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&central);
    le32(&mut out, 0x0605_4b50);
    le16(&mut out, 0);
    le16(&mut out, 0);
    le16(&mut out, count);
    le16(&mut out, count);
    le32(&mut out, central_size);
    le32(&mut out, central_offset);
    le16(&mut out, 0);
    out
}

const PLAYER: &str = r#"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{title}}</title>
<style>
  :root { --accent: #2f4f8f; }
  body { font-family: system-ui, sans-serif; max-width: 720px; margin: 2rem auto; padding: 0 1rem; color: #1d2330; }
  .card { border: 1px solid #d6dae4; border-radius: 8px; padding: .75rem 1rem; margin: .5rem 0; }
  .option { display: block; margin: .35rem 0; }
  nav { display: flex; justify-content: space-between; margin-top: 2rem; }
  button { background: var(--accent); color: #fff; border: 0; border-radius: 6px; padding: .6rem 1.2rem; font-size: 1rem; }
  button[disabled] { opacity: .4; }
</style>
</head>
<body>
<main id="player"></main>
<script id="course-data" type="application/json">{{data}}</script>
<script>
(function () {
  const data = JSON.parse(document.getElementById('course-data').textContent);
  const course = data.course;
  const screens = course.screens || [];
  const v2004 = data.version === '2004';
  if (data.theme && typeof data.theme.accentColor === 'string') document.documentElement.style.setProperty('--accent', data.theme.accentColor);
  // The theme's font and logo, carried in the package (theme/...).
  const themeFiles = document.getElementById('theme-files') ? JSON.parse(document.getElementById('theme-files').textContent) : {};
  if (typeof themeFiles.font === 'string' && window.FontFace) {
    new FontFace('course-font', 'url(' + themeFiles.font + ')').load()
      .then((face) => { document.fonts.add(face); document.body.style.fontFamily = "'course-font', system-ui, sans-serif"; })
      .catch(() => {});
  }
  if (typeof themeFiles.logo === 'string') {
    const logo = document.createElement('img');
    logo.alt = '';
    logo.src = themeFiles.logo;
    logo.style.display = 'block';
    logo.style.maxHeight = '56px';
    logo.style.margin = '1rem auto 0';
    const main = document.getElementById('player');
    main.parentNode.insertBefore(logo, main);
  }
  const answers = {};
  let index = 0;

  function findApi(win) {
    const name = v2004 ? 'API_1484_11' : 'API';
    for (let w = win, depth = 0; w && depth < 10; depth++) {
      if (w[name]) return w[name];
      if (w.parent && w.parent !== w) { w = w.parent; continue; }
      break;
    }
    if (win.opener) return findApi(win.opener);
    return null;
  }
  const api = findApi(window);
  const lms = {
    init() { if (api) v2004 ? api.Initialize('') : api.LMSInitialize(''); },
    set(k, v) { if (api) v2004 ? api.SetValue(k, String(v)) : api.LMSSetValue(k, String(v)); },
    commit() { if (api) v2004 ? api.Commit('') : api.LMSCommit(''); },
    finish() { if (api) v2004 ? api.Terminate('') : api.LMSFinish(''); },
  };
  lms.init();
  if (!v2004) lms.set('cmi.core.lesson_status', 'incomplete'); else lms.set('cmi.completion_status', 'incomplete');

  function el(tag, attrs, text) {
    const n = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => n.setAttribute(k, v));
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function block(b) {
    const box = el('div', { 'data-block-id': b.id, 'data-type': b.type });
    if (b.type === 'heading') box.appendChild(el('h2', {}, b.text));
    else if (b.type === 'text') box.appendChild(el('p', {}, b.text));
    else if (b.type === 'quote') box.appendChild(el('blockquote', {}, b.text));
    else if (b.type === 'image') box.appendChild(el('img', { src: b.url, alt: b.alt || '' }));
    else if (b.type === 'video') box.appendChild(el('video', { src: b.url, controls: '' }));
    else if (b.type === 'audio') {
      box.appendChild(el('audio', { src: b.url, controls: '' }));
      if (b.transcript) box.appendChild(el('p', {}, b.transcript));
    }
    else if (b.type === 'list') { const ul = el('ul'); (b.items || []).forEach(i => ul.appendChild(el('li', {}, i))); box.appendChild(ul); }
    else if (b.type === 'divider') box.appendChild(el('hr'));
    else if (b.type === 'button') { const x = el('button', { type: 'button' }, b.label); x.onclick = next; box.appendChild(x); }
    else if (b.type === 'stack') (b.stackCards || []).forEach(c => { const d = el('div', { class: 'card' }); d.appendChild(el('strong', {}, c.front)); if (c.back) d.appendChild(el('p', {}, c.back)); box.appendChild(d); });
    else if (b.type === 'multiple_choice' || b.type === 'multiple_response') {
      box.appendChild(el('p', {}, b.question));
      const multi = b.type === 'multiple_response';
      (b.options || []).forEach((o, i) => {
        const l = el('label', { class: 'option' });
        const input = el('input', { type: multi ? 'checkbox' : 'radio', name: b.id, value: String(i) });
        input.onchange = () => {
          if (multi) { const s = new Set(answers[b.id] || []); input.checked ? s.add(i) : s.delete(i); answers[b.id] = [...s]; }
          else answers[b.id] = i;
        };
        l.appendChild(input); l.appendChild(document.createTextNode(' ' + o)); box.appendChild(l);
      });
    } else if (b.type === 'true_false') {
      box.appendChild(el('p', {}, b.statement));
      [['True', true], ['False', false]].forEach(([t, val]) => {
        const l = el('label', { class: 'option' });
        const input = el('input', { type: 'radio', name: b.id, value: String(val) });
        input.onchange = () => { answers[b.id] = val; };
        l.appendChild(input); l.appendChild(document.createTextNode(' ' + t)); box.appendChild(l);
      });
    }
    return box;
  }

  function render() {
    const root = document.getElementById('player');
    root.innerHTML = '';
    root.appendChild(el('h1', {}, course.title));
    const s = screens[index];
    if (s) { const sec = el('section', { 'data-screen-id': s.id }); if (s.title) sec.appendChild(el('h2', {}, s.title)); (s.blocks || []).forEach(b => sec.appendChild(block(b))); root.appendChild(sec); }
    const nav = el('nav');
    const back = el('button', { id: 'back', type: 'button' }, 'Back'); back.disabled = index === 0; back.onclick = () => { index--; render(); };
    const last = index >= screens.length - 1;
    const fwd = el('button', { id: last ? 'finish' : 'continue', type: 'button' }, last ? 'Finish' : 'Continue'); fwd.onclick = next;
    nav.appendChild(back); nav.appendChild(fwd); root.appendChild(nav);
    if (v2004) lms.set('cmi.location', String(index)); else lms.set('cmi.core.lesson_location', String(index));
  }

  function next() { if (index < screens.length - 1) { index++; render(); } else finish(); }

  function correct(b, a) {
    if (a === undefined) return false;
    if (b.type === 'multiple_choice') return a === b.correctIndex;
    if (b.type === 'true_false') return a === b.answer;
    if (b.type === 'multiple_response') { const x = [...a].sort(), y = [...(b.correctIndexes || [])].sort(); return x.length === y.length && x.every((v, i) => v === y[i]); }
    return false;
  }

  function finish() {
    const scored = screens.flatMap(s => s.blocks || []).filter(b => ['multiple_choice', 'multiple_response', 'true_false'].includes(b.type));
    const right = scored.filter(b => correct(b, answers[b.id])).length;
    const score = scored.length ? Math.round(10000 * right / scored.length) / 100 : null;
    const passed = course.passingScore === null || course.passingScore === undefined || score === null || score >= course.passingScore;
    if (v2004) {
      lms.set('cmi.completion_status', 'completed');
      lms.set('cmi.success_status', passed ? 'passed' : 'failed');
      if (score !== null) { lms.set('cmi.score.min', 0); lms.set('cmi.score.max', 100); lms.set('cmi.score.raw', score); lms.set('cmi.score.scaled', score / 100); }
    } else {
      if (score !== null) { lms.set('cmi.core.score.min', 0); lms.set('cmi.core.score.max', 100); lms.set('cmi.core.score.raw', score); }
      lms.set('cmi.core.lesson_status', course.passingScore === null || course.passingScore === undefined ? 'completed' : (passed ? 'passed' : 'failed'));
    }
    lms.commit();
    lms.finish();
    const root = document.getElementById('player');
    root.innerHTML = '';
    root.appendChild(el('h1', {}, course.title));
    root.appendChild(el('p', { id: 'score' }, score === null ? 'Completed.' : 'Your score: ' + score + '%'));
    root.appendChild(el('p', { id: 'outcome' }, passed ? 'You passed.' : 'You did not reach the passing score.'));
  }

  render();
})();
</script>
</body>
</html>
"#;

#[cfg(test)]
mod tests {
    use kernel::Timestamp;
    use serde_json::Map;

    use super::*;
    use crate::model::CourseStatus;

    fn course() -> Course {
        Course {
            id: "crs_1".into(),
            workspace_id: "ws".into(),
            title: "Safety & <you>".into(),
            status: CourseStatus::Published,
            passing_score: Some(80),
            theme_id: None,
            certificate_id: None,
            source_kind: "manual".into(),
            settings: Map::new(),
            screens: vec![
                json!({ "id": "s", "title": "S", "blocks": [{ "id": "q", "type": "true_false", "statement": "x", "answer": true }] }),
            ],
            extra: Map::new(),
            published_at: None,
            created_at: Timestamp::from_millis(0),
            updated_at: Timestamp::from_millis(0),
        }
    }

    #[test]
    fn manifest_snapshots() {
        insta::assert_snapshot!("manifest_scorm12", manifest(&course(), ScormVersion::Scorm12));
        insta::assert_snapshot!("manifest_scorm2004", manifest(&course(), ScormVersion::Scorm2004));
    }

    #[test]
    fn crc32_matches_the_standard_check_value() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }

    #[test]
    fn manifests_follow_each_edition() {
        let m12 = manifest(&course(), ScormVersion::Scorm12);
        assert!(m12.contains("<schemaversion>1.2</schemaversion>") && m12.contains("adlcp:scormtype=\"sco\""));
        assert!(
            m12.contains("<adlcp:masteryscore>80</adlcp:masteryscore>") && m12.contains("Safety &amp; &lt;you&gt;")
        );
        let m2004 = manifest(&course(), ScormVersion::Scorm2004);
        assert!(
            m2004.contains("<schemaversion>2004 4th Edition</schemaversion>")
                && m2004.contains("adlcp:scormType=\"sco\"")
        );
        assert!(m2004.contains("<imsss:minNormalizedMeasure>0.8</imsss:minNormalizedMeasure>"));
    }

    #[test]
    fn the_zip_has_its_entries_at_the_root() {
        let zip = export(&course(), ScormVersion::Scorm12);
        assert!(zip.starts_with(b"PK\x03\x04"));
        let text = String::from_utf8_lossy(&zip);
        for name in ["imsmanifest.xml", "index.html", "course.json"] {
            assert!(text.contains(name), "{name}");
        }
        // End of central directory: three entries.
        let eocd = zip.len() - 22;
        assert_eq!(&zip[eocd..eocd + 4], b"PK\x05\x06");
        assert_eq!(u16::from_le_bytes([zip[eocd + 10], zip[eocd + 11]]), 3);
    }
}
