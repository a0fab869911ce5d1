//! Uptime monitoring: the public status page (`/status/<slug>`, its JSON
//! and its badge) and the dashboard's Monitoring tab, both from the same
//! `StatusView` and the same template (`status_view.html`).

use std::collections::BTreeMap;

use axum::extract::{Path, RawQuery, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use hub_core::monitoring::{CheckState, MonitorPatch, MonitorRow, RowState, StatusView, overall_label, status_json};
use hub_core::{Action, Feature, HubError, Source};
use kernel::Timestamp;
use serde_json::{Value, json};

use super::projects::{abilities, project_view};
use super::{Ctx, Dash, Dashboard, Form, FormErrors, Posted, when};

/// `?version=` and `?format=`, read leniently (a query string that does
/// not parse is no query at all) so every answer stays a page or JSON.
#[derive(Debug, Default)]
pub(crate) struct VersionQuery {
    version: Option<String>,
    format: Option<String>,
}

impl VersionQuery {
    fn parse(raw: Option<&str>) -> Self {
        let mut query = Self::default();
        for (name, value) in url::form_urlencoded::parse(raw.unwrap_or("").as_bytes()) {
            match name.as_ref() {
                "version" => query.version = Some(value.into_owned()),
                "format" => query.format = Some(value.into_owned()),
                _ => {}
            }
        }
        query
    }
}

/// "4 min ago", from the view's own clock.
fn age(now: Timestamp, at: Timestamp) -> String {
    let secs = (now.as_millis() - at.as_millis()).max(0) / 1000;
    match secs {
        0..=59 => format!("{secs} s ago"),
        60..=3599 => format!("{} min ago", secs / 60),
        3600..=86_399 => format!("{} h ago", secs / 3600),
        _ => format!("{} d ago", secs / 86_400),
    }
}

fn interval_words(secs: u64) -> String {
    if secs.is_multiple_of(60) { format!("{} minutes", secs / 60) } else { format!("{secs} seconds") }
}

fn state_word(state: RowState) -> &'static str {
    match state {
        RowState::Checked(CheckState::Up) => "Operational",
        RowState::Checked(CheckState::Degraded) => "Degraded",
        RowState::Checked(CheckState::Down) => "Down",
        RowState::None => "No data",
    }
}

fn row_context(row: &MonitorRow, now: Timestamp) -> Value {
    let (mut up, mut degraded, mut down) = (0, 0, 0);
    for segment in &row.segments {
        match segment.state {
            CheckState::Up => up += 1,
            CheckState::Degraded => degraded += 1,
            CheckState::Down => down += 1,
        }
    }
    let bar_label = if row.segments.is_empty() {
        "No checks in the last 24 hours".to_owned()
    } else {
        format!(
            "{} checks in the last 24 hours, oldest to newest: {up} operational, {degraded} degraded, {down} down",
            row.segments.len()
        )
    };
    json!({
        "id": row.monitor.id,
        "method": row.monitor.method,
        "path": if row.monitor.path.is_empty() { "(GraphQL introspection)" } else { row.monitor.path.as_str() },
        "monitored": row.monitor.monitored,
        "state": row.state.as_str(),
        "state_label": row.state.label(),
        "checked": row.last_checked_at.map(Timestamp::to_rfc3339),
        "age": row.last_checked_at.map(|at| age(now, at)),
        "latency": row.latency_ms,
        "uptime": row.uptime_24h.map(|u| format!("{u:.1}")),
        "segments": row.segments.iter().map(|s| json!({
            "state": s.state.as_str(),
            "title": format!("{}: {}", when(s.checked_at), s.state.as_str()),
        })).collect::<Vec<_>>(),
        "first": row.segments.first().map(|s| when(s.checked_at)),
        "last": row.segments.last().map(|s| when(s.checked_at)),
        "bar_label": bar_label,
    })
}

/// What `status_view.html` shows (the public page and the dashboard alike).
pub(crate) fn status_context(view: &StatusView) -> Value {
    let now = view.generated_at;
    json!({
        "project_slug": view.project_slug,
        "project_name": view.project_name,
        "is_public": view.is_public,
        "version": view.version,
        "is_default": view.default_version.as_deref() == Some(view.version.as_str()),
        "versions": view.versions.iter().map(|label| json!({
            "label": label,
            "is_default": view.default_version.as_deref() == Some(label.as_str()),
        })).collect::<Vec<_>>(),
        "overall": { "state": view.overall.as_str(), "word": state_word(view.overall), "label": overall_label(view.overall) },
        "rows": view.rows.iter().map(|row| row_context(row, now)).collect::<Vec<_>>(),
        "interval": interval_words(view.interval_secs),
        "refresh_secs": view.interval_secs,
        "generated": when(now),
    })
}

fn wants_json(headers: &HeaderMap, query: &VersionQuery) -> bool {
    match query.format.as_deref() {
        Some("json") => return true,
        Some("html") => return false,
        _ => {}
    }
    let accept = headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).unwrap_or("");
    accept.contains("application/json") && !accept.contains("text/html")
}

/// The public status page (default version, or `?version=`), its JSON, or
/// the project's badge (`/status/<slug>.svg`).
pub(crate) async fn status_page(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = VersionQuery::parse(raw.as_deref());
    if let Some(slug) = slug.strip_suffix(".svg") {
        return badge(&d, slug).await;
    }
    if query.version.as_deref() == Some("") {
        return crate::error::ApiError::from(HubError::validation(
            "version",
            "version names a version label; leave it out for the default",
        ))
        .into_response();
    }
    public(&d, &headers, &slug, query.version.as_deref(), &query).await
}

/// The public status page of one version.
pub(crate) async fn status_version_page(
    State(d): Dash,
    headers: HeaderMap,
    Path((slug, version)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> Response {
    public(&d, &headers, &slug, Some(&version), &VersionQuery::parse(raw.as_deref())).await
}

async fn public(d: &Dashboard, headers: &HeaderMap, slug: &str, label: Option<&str>, query: &VersionQuery) -> Response {
    if let Some(format) = query.format.as_deref().filter(|f| !matches!(*f, "json" | "html")) {
        return crate::error::ApiError::from(HubError::validation(
            "format",
            format!("format is json or html, not {format:?}"),
        ))
        .into_response();
    }
    let json = wants_json(headers, query);
    let view = match d.hub.public_status(slug, label).await {
        Ok(view) => view,
        Err(e) if json => return crate::error::ApiError::from(e).into_response(),
        Err(e) => return d.error_page(None, &e),
    };
    let mut response = if json {
        axum::Json(status_json(&view)).into_response()
    } else {
        let bare = Ctx { me: None, csrf: String::new(), flash: None, set_cookies: Vec::new() };
        d.render(&bare, StatusCode::OK, "status.html", "", json!({ "status": status_context(&view) }))
    };
    // Public, and the same for everyone: caches may keep it for a minute.
    response.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("public, max-age=60"));
    response.headers_mut().insert(header::VARY, HeaderValue::from_static("Accept"));
    response
}

/// A shields-style badge of the default version's overall state.
async fn badge(d: &Dashboard, slug: &str) -> Response {
    let (text, colour) = match d.hub.public_status(slug, None).await {
        Ok(view) => match view.overall {
            RowState::Checked(CheckState::Up) => ("operational", "#047857"),
            RowState::Checked(CheckState::Degraded) => ("degraded", "#b45309"),
            RowState::Checked(CheckState::Down) => ("down", "#b91c1c"),
            RowState::None => ("no data", "#6b7280"),
        },
        Err(HubError::NotFound { .. }) => return StatusCode::NOT_FOUND.into_response(),
        Err(e) => return d.error_page(None, &e),
    };
    // Widths from a 6.5 px average glyph of 11 px Verdana, as badge
    // services size them.
    let label = "API status";
    let left = 10 + label.len() * 13 / 2;
    let right = 10 + text.len() * 13 / 2;
    let total = left + right;
    let svg = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{total}" height="20" role="img" aria-label="{label}: {text}"><title>{label}: {text}</title><rect width="{left}" height="20" fill="#555"/><rect x="{left}" width="{right}" height="20" fill="{colour}"/><g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11"><text x="{lx}" y="14">{label}</text><text x="{rx}" y="14">{text}</text></g></svg>"##,
        lx = left / 2,
        rx = left + right / 2,
    );
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"),
            (header::CACHE_CONTROL, "public, max-age=300"),
            (header::CONTENT_SECURITY_POLICY, "default-src 'none'; style-src 'unsafe-inline'"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        svg,
    )
        .into_response()
}

/// One `name=value` per line.
fn parse_lines(field: &'static str, text: &str) -> Result<BTreeMap<String, String>, HubError> {
    let mut out = BTreeMap::new();
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let Some((name, value)) = line.split_once('=') else {
            return Err(HubError::validation(field, format!("write one name=value per line (\"{line}\" has no =)")));
        };
        out.insert(name.trim().to_owned(), value.trim().to_owned());
    }
    Ok(out)
}

fn lines(values: &BTreeMap<String, String>) -> String {
    values.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join("\n")
}

/// The Monitoring tab: the status of a version, every operation with its
/// toggle, and the credentials probes send.
pub(crate) async fn tab(
    State(d): Dash,
    headers: HeaderMap,
    Path(slug): Path<String>,
    RawQuery(raw): RawQuery,
) -> Response {
    let query = VersionQuery::parse(raw.as_deref());
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/monitoring")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    let access = match d.hub.project_access(&me.principal, &slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(&ctx), &e),
    };
    let label = query.version.as_deref().filter(|v| !v.is_empty());
    let allowed = access.owner_plan.allows(Feature::Monitoring);
    let (mut status, mut monitors, mut credentials) = (Value::Null, Value::Null, Value::Null);
    if allowed {
        let view = match d.hub.monitor_status(&me.principal, &slug, label).await {
            Ok(view) => Some(view),
            Err(HubError::NotFound { resource: "version" }) if label.is_none() => None,
            Err(e) => return d.error_page(Some(&ctx), &e),
        };
        if let Some(view) = view {
            let (rows, slots) = match (
                d.hub.list_monitors(&me.principal, &slug, Some(&view.version)).await,
                d.hub.monitor_credentials(&me.principal, &slug, Some(&view.version)).await,
            ) {
                (Ok((_, rows)), Ok(slots)) => (rows, slots),
                (Err(e), _) | (_, Err(e)) => return d.error_page(Some(&ctx), &e),
            };
            status = status_context(&view);
            monitors = rows.iter().map(|row| row_context(row, view.generated_at)).collect::<Vec<_>>().into();
            credentials = slots
                .iter()
                .map(|c| json!({ "scheme": c.scheme, "kind": c.kind, "set": c.set }))
                .collect::<Vec<_>>()
                .into();
        }
    }
    let page = json!({
        "project": project_view(&access),
        "can": { "manage": access.access.may(Action::ManageMonitors) },
        "tab": "monitoring",
        "allowed": allowed,
        "status": status,
        "monitors": monitors,
        "credentials": credentials,
    });
    d.render(&ctx, StatusCode::OK, "project_monitoring.html", "projects", page)
}

async fn monitor_page(d: &Dashboard, ctx: &Ctx, me: &super::Me, slug: &str, id: &str, form: Option<Form>) -> Response {
    let access = match d.hub.project_access(&me.principal, slug).await {
        Ok(access) => access,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let (row, checks) = match d.hub.monitor_checks(&me.principal, slug, id, 50).await {
        Ok(found) => found,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let version = match d.hub.monitor_version_label(&row.monitor).await {
        Ok(label) => label,
        Err(e) => return d.error_page(Some(ctx), &e),
    };
    let status = if form.as_ref().is_some_and(|f| !f.errors.is_empty()) {
        StatusCode::UNPROCESSABLE_ENTITY
    } else {
        StatusCode::OK
    };
    let form = form.unwrap_or_else(|| {
        let mut form = Form::default();
        form.values.insert("path_params".into(), lines(&row.monitor.path_params));
        form.values.insert("query".into(), lines(&row.monitor.query));
        form
    });
    let now = d.hub.clock().now();
    let monitor = row_context(&row, now);
    d.render(
        ctx,
        status,
        "monitor.html",
        "projects",
        json!({
            "project": project_view(&access),
            "can": { "manage": access.access.may(Action::ManageMonitors), "project": abilities(&access) },
            "tab": "monitoring",
            "version": version,
            "monitor": monitor,
            "form": form.view(),
            "checks": checks.iter().map(|c| json!({
                "at": c.checked_at.to_rfc3339(),
                "when": when(c.checked_at),
                "state": c.state.as_str(),
                "state_label": RowState::Checked(c.state).label(),
                "status": c.status_code,
                "latency": c.latency_ms,
                "snippet": c.snippet,
                "error": c.error,
                "schema": c.schema_valid,
            })).collect::<Vec<_>>(),
        }),
    )
}

/// One monitor's checks and probe values.
pub(crate) async fn monitor(State(d): Dash, headers: HeaderMap, Path((slug, id)): Path<(String, String)>) -> Response {
    let (ctx, me) = match d.signed_in(&headers, &format!("/app/p/{slug}/monitoring/{id}")).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    monitor_page(&d, &ctx, &me, &slug, &id, None).await
}

/// Turns a monitor on or off, or saves its probe values.
pub(crate) async fn save(State(d): Dash, Path((slug, id)): Path<(String, String)>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let version = form.get("version").to_owned();
    let back = if version.is_empty() {
        format!("/app/p/{slug}/monitoring")
    } else {
        format!("/app/p/{slug}/monitoring?version={}", super::encode(&version))
    };
    if form.get("values") == "1" {
        let parsed = parse_lines("path_params", form.get("path_params"))
            .and_then(|p| parse_lines("query", form.get("query")).map(|q| (p, q)));
        let result = match parsed {
            Ok((path_params, query)) => {
                let patch = MonitorPatch { monitored: None, path_params: Some(path_params), query: Some(query) };
                d.hub.update_monitor(&me.principal, &slug, &id, patch, Source::Dashboard).await.map(|_| ())
            }
            Err(e) => Err(e),
        };
        return match result {
            Ok(()) => d.redirect_with(&format!("/app/p/{slug}/monitoring/{id}"), "success", "Probe values saved."),
            Err(e @ (HubError::Validation { .. } | HubError::InvalidField { .. })) => {
                monitor_page(&d, &ctx, &me, &slug, &id, Some(form.with_error(&e))).await
            }
            Err(e) => d.error_page(Some(&ctx), &e),
        };
    }
    let on = form.get("monitored") == "true";
    let patch = MonitorPatch { monitored: Some(on), ..MonitorPatch::default() };
    match d.hub.update_monitor(&me.principal, &slug, &id, patch, Source::Dashboard).await {
        Ok(row) => {
            let what = format!("{} {}", row.monitor.method, row.monitor.path);
            let text = if on {
                format!("{what} is monitored from the next round.")
            } else {
                format!("{what} is no longer monitored.")
            };
            d.redirect_with(&format!("{back}#operations"), "success", &text)
        }
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// Stores or clears the credential of one security scheme.
pub(crate) async fn credential(State(d): Dash, Path(slug): Path<String>, request: Request) -> Response {
    let Posted { ctx, me, form, .. } = match d.posted(request).await {
        Ok(posted) => posted,
        Err(response) => return response,
    };
    let scheme = form.get("scheme").to_owned();
    let clear = form.get("clear") == "1";
    let value = form.get("value");
    let back = format!("/app/p/{slug}/monitoring#credentials");
    if !clear && value.is_empty() {
        return d.redirect_with(&back, "error", &format!("Enter a credential for {scheme} first."));
    }
    let result =
        d.hub.set_monitor_credential(&me.principal, &slug, &scheme, (!clear).then_some(value), Source::Dashboard).await;
    match result {
        Ok(()) if clear => d.redirect_with(&back, "success", &format!("The credential for {scheme} is cleared.")),
        Ok(()) => d.redirect_with(&back, "success", &format!("The credential for {scheme} is stored.")),
        Err(e @ HubError::Validation { .. }) => d.redirect_with(&back, "error", &e.to_string()),
        Err(e) => d.error_page(Some(&ctx), &e),
    }
}

/// The templates of this module, for `pages()`.
pub(crate) const TEMPLATES: [(&str, &str); 4] = [
    ("status.html", include_str!("../../templates/dashboard/status.html")),
    ("status_view.html", include_str!("../../templates/dashboard/status_view.html")),
    ("project_monitoring.html", include_str!("../../templates/dashboard/project_monitoring.html")),
    ("monitor.html", include_str!("../../templates/dashboard/monitor.html")),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages_read_in_the_largest_whole_unit() {
        let now = Timestamp::from_millis(10_000_000);
        assert_eq!(age(now, Timestamp::from_millis(10_000_000 - 42_000)), "42 s ago");
        assert_eq!(age(now, Timestamp::from_millis(10_000_000 - 600_000)), "10 min ago");
        assert_eq!(age(now, Timestamp::from_millis(10_000_000 - 7_200_000)), "2 h ago");
    }

    #[test]
    fn probe_values_are_one_pair_per_line() {
        let parsed = parse_lines("query", " a = 1 \n\nb=x=y\n").unwrap();
        assert_eq!(parsed.get("a").map(String::as_str), Some("1"));
        assert_eq!(parsed.get("b").map(String::as_str), Some("x=y"));
        assert!(parse_lines("query", "nothing").is_err());
    }
}
