//! The studio through the real router: sign-up, sign-in and sign-out,
//! password reset by a mailed link,
//! invitations and roles, the course list with search, a course's screens,
//! publishing, and SCORM export on every plan, on both stores.

use std::collections::BTreeMap;

use axum::body::Body;
use axum::http::{Method, Request, StatusCode};
use courses_core::Plan;
use courses_core::members::SignupMode;
use http_body_util::BodyExt as _;
use tower::ServiceExt as _;

use crate::on_both_stores;
use crate::support::{TestApp, TestResponse};

on_both_stores!(
    signing_up_makes_a_workspace_with_its_owner,
    authors_build_publish_and_export_scorm_on_every_plan,
    invitations_bring_in_members_with_their_roles,
    sessions_end_and_bad_input_is_a_clear_page,
    passwords_are_reset_by_a_mailed_single_use_link,
    svc_signup_closes_the_sign_up_page_but_not_invitations,
    screens_and_quiz_blocks_are_edited_and_links_minted,
    every_block_kind_has_a_form_a_live_preview_and_screens_drag_into_order,
    media_uploads_are_typed_by_their_bytes_limited_and_served_sandboxed,
    a_theme_takes_an_uploaded_font_and_logo_into_the_player,
    a_thousand_learners_are_previewed_then_imported,
    themes_need_scale_and_apply_to_the_player_until_a_downgrade,
    certificate_templates_are_edited_and_previewed_as_pdf,
    webhooks_are_made_tested_and_logged_in_the_studio,
    uploads_are_chosen_in_image_video_and_audio_forms,
    translations_are_edited_side_by_side_and_played,
    courses_are_generated_from_a_prompt_and_a_source_file,
    issued_certificates_are_listed_with_their_pdf,
    unconfirmed_sign_ups_are_removed_after_a_week,
    addresses_are_confirmed_before_the_first_sign_in,
    people_in_several_workspaces_switch_between_them,
);

/// A browser: keeps the cookies the studio sets and posts its forms with
/// the CSRF token of the page they came from.
struct Browser<'a> {
    app: &'a TestApp,
    cookies: BTreeMap<String, String>,
}

impl<'a> Browser<'a> {
    fn new(app: &'a TestApp) -> Self {
        Self { app, cookies: BTreeMap::new() }
    }

    async fn request(&mut self, method: Method, path: &str, body: Option<String>) -> TestResponse {
        let mut builder = Request::builder().method(method).uri(path);
        if !self.cookies.is_empty() {
            let jar: Vec<String> = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
            builder = builder.header("cookie", jar.join("; "));
        }
        if body.is_some() {
            builder = builder.header("content-type", "application/x-www-form-urlencoded");
        }
        let request = builder.body(body.map_or_else(Body::empty, Body::from)).unwrap();
        let response = self.app.router.clone().oneshot(request).await.unwrap();
        for value in response.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            if value.is_empty() {
                self.cookies.remove(name);
            } else {
                self.cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    async fn get(&mut self, path: &str) -> TestResponse {
        self.request(Method::GET, path, None).await
    }

    /// Opens `page` and uploads `file` (as the field `file`) to `action`
    /// with the page's token, as a browser sends a multipart form.
    async fn upload(&mut self, page: &str, action: &str, file: &str) -> TestResponse {
        let html = self.get(page).await.text();
        let token = csrf_token(&html);
        let boundary = "studio-test-boundary";
        let body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"csrf_token\"\r\n\r\n{token}\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"learners.csv\"\r\nContent-Type: text/csv\r\n\r\n{file}\r\n\
             --{boundary}--\r\n"
        );
        let jar: Vec<String> = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let request = Request::builder()
            .method(Method::POST)
            .uri(action)
            .header("cookie", jar.join("; "))
            .header("content-type", format!("multipart/form-data; boundary={boundary}"))
            .body(Body::from(body))
            .unwrap();
        let response = self.app.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    /// Uploads `bytes` as the file `name` to `/media` with the media page's
    /// token (in the form's address, as the page's form sends it).
    async fn upload_media(&mut self, name: &str, bytes: &[u8], accept: &str) -> TestResponse {
        let html = self.get("/media").await.text();
        let token = csrf_token(&html);
        self.upload_media_with(&format!("/media?csrf_token={token}"), name, bytes, accept).await
    }

    async fn upload_media_with(&mut self, action: &str, name: &str, bytes: &[u8], accept: &str) -> TestResponse {
        let boundary = "studio-media-boundary";
        let mut body = format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        .into_bytes();
        body.extend_from_slice(bytes);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let jar: Vec<String> = self.cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let request = Request::builder()
            .method(Method::POST)
            .uri(action)
            .header("cookie", jar.join("; "))
            .header("accept", accept)
            .header("content-type", format!("multipart/form-data; boundary={boundary}"))
            .body(Body::from(body))
            .unwrap();
        let response = self.app.router.clone().oneshot(request).await.unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.into_body().collect().await.unwrap().to_bytes();
        TestResponse { status, headers, body }
    }

    /// Opens `page` and posts `fields` to `action` with the page's token.
    async fn submit(&mut self, page: &str, action: &str, fields: &[(&str, &str)]) -> TestResponse {
        let html = self.get(page).await.text();
        let token = csrf_token(&html);
        let mut all: Vec<(&str, &str)> = vec![("csrf_token", token.as_str())];
        all.extend_from_slice(fields);
        self.request(Method::POST, action, Some(serde_urlencoded::to_string(&all).unwrap())).await
    }
}

fn csrf_token(html: &str) -> String {
    let start = html.find("name=\"csrf_token\" value=\"").expect("a form with a CSRF token") + 25;
    html[start..].split('"').next().unwrap().to_owned()
}

fn location(response: &TestResponse) -> &str {
    response.headers.get("location").map_or("", |v| v.to_str().unwrap())
}

const PASSWORD: &str = "correct horse battery staple";

async fn sign_up<'a>(app: &'a TestApp, email: &str) -> Browser<'a> {
    let mut browser = Browser::new(app);
    let done = browser
        .submit(
            "/signup",
            "/signup",
            &[("workspace_name", "Acme Academy"), ("display_name", "Ada"), ("email", email), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(done.status, StatusCode::OK, "{}", done.text());
    assert!(done.text().contains("Check your mail"), "{}", done.text());
    let verified = confirm_address(&mut browser, app.mails().last().expect("the confirmation mail")).await;
    assert_eq!((verified.status, location(&verified)), (StatusCode::SEE_OTHER, "/"));
    app.clear_mails();
    browser
}

/// Opens the confirmation link a mail carries and presses its button.
async fn confirm_address(browser: &mut Browser<'_>, mail: &str) -> TestResponse {
    let path = link_path(mail, "http://studio.test/verify?token=");
    let page = browser.get(&path).await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text().contains("Confirm and sign in"), "a button, not the link, confirms");
    let token = path.trim_start_matches("/verify?token=").to_owned();
    browser.submit(&path, "/verify", &[("token", &token)]).await
}

/// The workspace id the settings page shows.
fn workspace_id(settings: &str) -> String {
    let marker = "<code id=\"ws-id\">";
    let start = settings.find(marker).unwrap() + marker.len();
    settings[start..].split('<').next().unwrap().to_owned()
}

async fn signing_up_makes_a_workspace_with_its_owner(app: TestApp) {
    let mut anonymous = Browser::new(&app);
    let welcome = anonymous.get("/").await;
    assert_eq!(welcome.status, StatusCode::OK);
    assert!(welcome.text().contains("href=\"/signup\"") && welcome.text().contains("href=\"/signin\""));

    // A weak password is refused beside its field; the other values stay.
    let weak = anonymous
        .submit(
            "/signup",
            "/signup",
            &[("email", "ada@example.com"), ("password", "password1"), ("display_name", "Ada")],
        )
        .await;
    assert_eq!(weak.status, StatusCode::UNPROCESSABLE_ENTITY);
    let html = weak.text();
    assert!(html.contains("id=\"e-password\""), "{html}");
    assert!(html.contains("value=\"ada@example.com\"") && !html.contains("password1"), "{html}");
    assert!(app.courses.store().workspace_summaries().await.unwrap().is_empty(), "nothing was written");

    let mut ada = sign_up(&app, "Ada@Example.com").await;
    let home = ada.get("/").await;
    assert_eq!(home.status, StatusCode::OK);
    let html = home.text();
    assert!(html.contains("No courses yet") && html.contains("ada@example.com"), "{html}");
    assert_eq!(home.headers["cache-control"], "no-store");

    let settings = ada.get("/settings").await.text();
    let listed = app.courses.store().workspace_summaries().await.unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(workspace_id(&settings), listed[0].workspace.id);
    assert_eq!(listed[0].workspace.name, "Acme Academy");
    assert!(settings.contains("<span class=\"badge\">sandbox</span>"), "{settings}");
    assert!(settings.contains("0 of 500"), "usage against the Sandbox allowance: {settings}");
    assert!(settings.contains("<td data-label=\"Role\">owner</td>"), "{settings}");

    // The same address again: the same page as for a new address, a mail
    // to the address's owner instead of a link, and nothing new.
    let again =
        Browser::new(&app).submit("/signup", "/signup", &[("email", "ada@example.com"), ("password", PASSWORD)]).await;
    let fresh =
        Browser::new(&app).submit("/signup", "/signup", &[("email", "bob@example.com"), ("password", PASSWORD)]).await;
    assert_eq!((again.status, fresh.status), (StatusCode::OK, StatusCode::OK));
    assert_eq!(
        again.text().replace("ada@example.com", "X"),
        fresh.text().replace("bob@example.com", "X"),
        "a known address is not told apart"
    );
    let mails = app.mails();
    assert_eq!(mails.len(), 2, "{mails:?}");
    assert!(mails[0].contains("To: ada@example.com") && mails[0].contains("has an account already"), "{}", mails[0]);
    assert!(!mails[0].contains("/verify?token="), "no link that would sign anyone in");
    assert!(mails[1].contains("To: bob@example.com") && mails[1].contains("/verify?token="), "{}", mails[1]);
    assert_eq!(app.courses.store().workspace_summaries().await.unwrap().len(), 2, "Bob's, unconfirmed");
}

async fn authors_build_publish_and_export_scorm_on_every_plan(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let empty_title = ada.submit("/", "/courses", &[("title", "  ")]).await;
    assert_eq!(empty_title.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty_title.text().contains("id=\"e-title\""), "{}", empty_title.text());

    let created = ada.submit("/", "/courses", &[("title", "Fire safety")]).await;
    assert_eq!(created.status, StatusCode::SEE_OTHER);
    let course_path = location(&created).to_owned();
    assert!(course_path.starts_with("/courses/crs_"), "{course_path}");
    let course_id = course_path.trim_start_matches("/courses/").to_owned();

    let added = ada
        .submit(
            &course_path,
            &format!("{course_path}/screens"),
            &[("title", "Welcome"), ("text", "Two minutes <b>to</b> learn.")],
        )
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER);
    let page = ada.get(&course_path).await.text();
    assert!(page.contains("1. Welcome"), "{page}");
    assert!(page.contains("Two minutes &lt;b&gt;to&lt;&#x2f;b&gt; learn."), "escaped: {page}");
    assert!(page.contains("Screen added."), "the flash message: {page}");
    assert!(!ada.get(&course_path).await.text().contains("Screen added."), "shown once");

    // Search.
    assert!(ada.get("/?q=FIRE").await.text().contains("Fire safety"));
    let none = ada.get("/?q=zzz").await.text();
    assert!(none.contains("No course matches") && !none.contains(">Fire safety<"), "{none}");
    assert_eq!(ada.get("/?offset=nonsense").await.status, StatusCode::OK, "a bad query is the first page");

    // The draft in the learner player, framed by the course page: nothing counted.
    assert!(ada.get(&course_path).await.text().contains(&format!("<iframe src=\"{course_path}/preview\"")));
    let preview = ada.get(&format!("{course_path}/preview")).await;
    assert_eq!(preview.status, StatusCode::OK);
    let player = preview.text();
    assert!(player.contains("Fire safety") && player.contains("\"preview\":true"), "{player}");
    assert!(ada.get("/settings").await.text().contains("0 of 500"), "a studio preview is not a course view");
    assert_eq!(Browser::new(&app).get(&format!("{course_path}/preview")).await.status, StatusCode::SEE_OTHER);

    // Publish, then unpublish.
    let published = ada.submit(&course_path, &format!("{course_path}/status"), &[("status", "published")]).await;
    assert_eq!(published.status, StatusCode::SEE_OTHER);
    let page = ada.get(&course_path).await.text();
    assert!(page.contains("<span class=\"badge ok\">published</span>") && page.contains("Unpublish"), "{page}");
    assert!(page.contains(&format!("href=\"/v1/embed/{course_id}\"")), "the learner preview: {page}");

    // SCORM from the studio on Sandbox, both editions; the API keeps its gate.
    for (version, schema) in [("1.2", "ADL SCORM"), ("2004", "2004")] {
        let zip = ada.get(&format!("{course_path}/scorm?version={version}")).await;
        assert_eq!(zip.status, StatusCode::OK, "{version}");
        assert_eq!(zip.headers["content-type"], "application/zip");
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip.body.to_vec())).unwrap();
        let mut manifest = String::new();
        std::io::Read::read_to_string(&mut archive.by_name("imsmanifest.xml").unwrap(), &mut manifest).unwrap();
        assert!(manifest.contains(schema), "{version}: {manifest}");
    }
    let bad = ada.get(&format!("{course_path}/scorm?version=3")).await;
    assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    assert!(bad.text().contains("1.2 or 2004"));
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let (_, key) = app.courses.create_key(&ws, "ci", false).await.unwrap();
    let api = app.get(&format!("/v1/courses/{course_id}/scorm?version=1.2"), key.expose()).await;
    assert_eq!(api.status, StatusCode::FORBIDDEN);
    assert_eq!(api.error(), "plan_required");
    assert!(api.json()["message"].as_str().unwrap().contains("requires the Scale plan"), "{}", api.text());

    // Another workspace's course is not found, never confirmed.
    let (_, other_key) = app.workspace(Plan::Sandbox).await;
    let theirs = app.course(&other_key, &serde_json::json!({ "title": "Theirs" })).await;
    let stranger = ada.get(&format!("/courses/{}", theirs["id"].as_str().unwrap())).await;
    assert_eq!(stranger.status, StatusCode::NOT_FOUND);
    assert!(stranger.text().contains("Not found"));
    let export = ada.get(&format!("/courses/{}/scorm?version=1.2", theirs["id"].as_str().unwrap())).await;
    assert_eq!(export.status, StatusCode::NOT_FOUND);
}

async fn invitations_bring_in_members_with_their_roles(app: TestApp) {
    let mut owner = sign_up(&app, "owner@example.com").await;
    let bad =
        owner.submit("/settings", "/settings/invitations", &[("email", "not an address"), ("role", "viewer")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("id=\"e-email\""));

    let invited =
        owner.submit("/settings", "/settings/invitations", &[("email", "Vera@example.com"), ("role", "viewer")]).await;
    assert_eq!(invited.status, StatusCode::OK);
    assert_eq!(invited.headers["cache-control"], "no-store");
    let html = invited.text();
    let marker = "<code id=\"invite-link\" class=\"wide\">";
    let start = html.find(marker).unwrap() + marker.len();
    let link = html[start..].split('<').next().unwrap().replace("&#x2f;", "/");
    assert!(link.starts_with("http://studio.test/invitations/"), "{link}");
    assert!(html.contains("vera@example.com as viewer"), "pending: {html}");
    let mails = app.mails();
    assert_eq!(mails.len(), 1);
    assert!(mails[0].contains("To: vera@example.com") && mails[0].contains(&link), "{}", mails[0]);

    let path = link.trim_start_matches("http://studio.test").to_owned();
    let mut vera = Browser::new(&app);
    let form = vera.get(&path).await.text();
    assert!(form.contains("Join Acme Academy") && form.contains("vera@example.com"), "{form}");
    let weak = vera.submit(&path, &path, &[("display_name", "Vera"), ("password", "123")]).await;
    assert_eq!(weak.status, StatusCode::UNPROCESSABLE_ENTITY);
    let joined = vera.submit(&path, &path, &[("display_name", "Vera"), ("password", PASSWORD)]).await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER, "{}", joined.text());
    assert_eq!(vera.get(&path).await.status, StatusCode::NOT_FOUND, "a link works once");

    // A viewer reads but sees no controls, and is refused when posting anyway.
    let home = vera.get("/").await.text();
    assert!(home.contains("No courses yet") && !home.contains("action=\"/courses\""), "{home}");
    let refused = vera.submit("/settings", "/courses", &[("title", "Sneaky")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.text().contains("viewer"), "{}", refused.text());
    let settings = vera.get("/settings").await.text();
    assert!(!settings.contains("Invite someone") && settings.contains("Vera"), "{settings}");
    let invite =
        vera.submit("/settings", "/settings/invitations", &[("email", "x@example.com"), ("role", "owner")]).await;
    assert_eq!(invite.status, StatusCode::FORBIDDEN, "only owners invite");
    let owner_home = owner.get("/").await.text();
    assert!(owner_home.contains("No courses yet"), "nothing was created: {owner_home}");
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].clone();
    assert_eq!(ws.members, 2);
    let listed: Vec<(String, &str)> = app
        .courses
        .workspace_members(&ws.workspace.id)
        .await
        .unwrap()
        .iter()
        .map(|m| (m.email.clone(), m.role.as_str()))
        .collect();
    assert_eq!(listed, [("owner@example.com".to_owned(), "owner"), ("vera@example.com".to_owned(), "viewer")]);
    let members = owner.get("/settings").await.text();
    assert!(members.contains("<td data-label=\"Role\">viewer</td>") && members.contains("vera@example.com"));
}

async fn sessions_end_and_bad_input_is_a_clear_page(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    // A form without its token changes nothing.
    let forged = ada.request(Method::POST, "/courses", Some("title=Forged".to_owned())).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    assert!(forged.text().contains("This form has expired"));
    assert!(ada.get("/").await.text().contains("No courses yet"));

    let out = ada.submit("/", "/signout", &[]).await;
    assert_eq!(out.status, StatusCode::SEE_OTHER);
    let after = ada.get("/settings").await;
    assert_eq!(after.status, StatusCode::SEE_OTHER);
    assert_eq!(location(&after), "/signin");

    let wrong =
        ada.submit("/signin", "/signin", &[("email", "ada@example.com"), ("password", "wrong password here")]).await;
    assert_eq!(wrong.status, StatusCode::UNPROCESSABLE_ENTITY);
    let unknown = ada.submit("/signin", "/signin", &[("email", "nobody@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(unknown.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(wrong.text().contains("The address or the password is not right."));
    assert!(unknown.text().contains("The address or the password is not right."));
    let back = ada.submit("/signin", "/signin", &[("email", "ADA@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(back.status, StatusCode::SEE_OTHER);
    assert_eq!(ada.get("/settings").await.status, StatusCode::OK);

    // A session ends after 14 days unused.
    app.clock.advance_days(15);
    assert_eq!(ada.get("/settings").await.status, StatusCode::SEE_OTHER);

    let mut anyone = Browser::new(&app);
    let missing = anyone.get("/invitations/nonsense").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.text().contains("invitation not found"), "{}", missing.text());
    assert_eq!(anyone.get("/courses/crs_nope").await.status, StatusCode::SEE_OTHER, "signed out: sign in first");
    let garbage = anyone.request(Method::POST, "/signup", Some("%%%=&&&".to_owned())).await;
    assert_eq!(garbage.status, StatusCode::FORBIDDEN);
    assert_eq!(anyone.get("/_studio/app.css").await.headers["cache-control"], "public, max-age=31536000, immutable");
    assert_eq!(anyone.get("/_studio/nope.css").await.status, StatusCode::NOT_FOUND);
}

/// The screen ids of a course page, in order.
/// The reset link a mail carries, as a path.
fn reset_path(mail: &str) -> String {
    link_path(mail, "http://studio.test/reset/new?token=")
}

async fn passwords_are_reset_by_a_mailed_single_use_link(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let signin = Browser::new(&app).get("/signin").await.text();
    assert!(signin.contains("href=\"/reset\""), "{signin}");

    // The same page for an account, an unknown address and an address
    // without an account; only the account gets a mail.
    let mut anyone = Browser::new(&app);
    let known = anyone.submit("/reset", "/reset", &[("email", "ADA@example.com")]).await;
    let unknown = anyone.submit("/reset", "/reset", &[("email", "nobody@example.com")]).await;
    assert_eq!((known.status, unknown.status), (StatusCode::OK, StatusCode::OK));
    assert_eq!(
        known.text().replace("ADA@example.com", "X"),
        unknown.text().replace("nobody@example.com", "X"),
        "a known address is not told apart"
    );
    assert!(known.text().contains("Check your mail"));
    let empty = anyone.submit("/reset", "/reset", &[("email", " ")]).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    let mails = app.mails();
    assert_eq!(mails.len(), 1, "{mails:?}");
    assert!(mails[0].contains("To: ada@example.com") && mails[0].contains("works once, for 1 hour"), "{}", mails[0]);
    let path = reset_path(&mails[0]);
    let token = path.trim_start_matches("/reset/new?token=").to_owned();
    let stored = app.courses.store().open_password_reset(&token, kernel::Clock::now(&app.clock)).await.unwrap();
    assert!(stored.is_none(), "the link is stored as its hash, not as itself");

    let form = anyone.get(&path).await;
    assert_eq!(form.status, StatusCode::OK);
    assert!(form.text().contains("For ada@example.com."), "{}", form.text());
    let weak = anyone.submit(&path, "/reset/new", &[("token", &token), ("password", "short")]).await;
    assert_eq!(weak.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(weak.text().contains("id=\"e-password\""), "{}", weak.text());
    const NEW: &str = "a brand new passphrase here";
    let saved = anyone.submit(&path, "/reset/new", &[("token", &token), ("password", NEW)]).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "a refused password leaves the link usable: {}", saved.text());
    assert_eq!(location(&saved), "/signin");

    // The link is spent, every session of the person ended, and only the
    // new password signs in.
    assert_eq!(anyone.get(&path).await.status, StatusCode::BAD_REQUEST);
    let again = anyone.submit("/reset", "/reset/new", &[("token", &token), ("password", NEW)]).await;
    assert_eq!(again.status, StatusCode::BAD_REQUEST);
    assert!(again.text().contains("This link does not work"));
    assert_eq!(ada.get("/settings").await.status, StatusCode::SEE_OTHER, "the old session ended");
    let old = ada.submit("/signin", "/signin", &[("email", "ada@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(old.status, StatusCode::UNPROCESSABLE_ENTITY);
    let new = ada.submit("/signin", "/signin", &[("email", "ada@example.com"), ("password", NEW)]).await;
    assert_eq!(new.status, StatusCode::SEE_OTHER);

    // A link expires after an hour.
    anyone.submit("/reset", "/reset", &[("email", "ada@example.com")]).await;
    let late = reset_path(app.mails().last().unwrap());
    assert_eq!(anyone.get(&late).await.status, StatusCode::OK);
    app.clock.advance_millis(3_600_001);
    assert_eq!(anyone.get(&late).await.status, StatusCode::BAD_REQUEST);
    assert_eq!(anyone.get("/reset/new?token=nonsense").await.status, StatusCode::BAD_REQUEST);
    assert_eq!(anyone.get("/reset/new").await.status, StatusCode::BAD_REQUEST);
}

/// The same app with `SVC_SIGNUP` set to `mode`.
fn with_signup(app: TestApp, mode: SignupMode) -> TestApp {
    app.with_courses(|courses| {
        let mut members = courses.members_config().clone();
        members.signup = mode;
        courses.with_members(members)
    })
}

async fn svc_signup_closes_the_sign_up_page_but_not_invitations(app: TestApp) {
    let open = Browser::new(&app).get("/").await.text();
    assert!(open.contains("href=\"/signup\""), "{open}");
    let ws = workspace_id(&sign_up(&app, "owner@example.com").await.get("/settings").await.text());
    let mut app = app;
    for mode in [SignupMode::Invite, SignupMode::Closed] {
        app = with_signup(app, mode);
        let mut anyone = Browser::new(&app);
        let welcome = anyone.get("/").await.text();
        assert!(!welcome.contains("href=\"/signup\"") && welcome.contains("ask a workspace owner"), "{welcome}");
        assert!(!anyone.get("/signin").await.text().contains("href=\"/signup\""));
        let page = anyone.get("/signup").await;
        assert_eq!(page.status, StatusCode::FORBIDDEN, "{mode:?}");
        assert!(page.text().contains("sign-up is closed on this server"), "{}", page.text());
        let token = csrf_token(&anyone.get("/signin").await.text());
        let body = format!("csrf_token={token}&email=new%40example.com&password=correct+horse+battery+staple");
        let posted = anyone.request(Method::POST, "/signup", Some(body)).await;
        assert_eq!(posted.status, StatusCode::FORBIDDEN, "{mode:?}: {}", posted.text());
        assert_eq!(app.courses.store().workspace_summaries().await.unwrap().len(), 1, "no workspace was made");
    }
    // Invitations from an owner still bring people in.
    let mut owner = Browser::new(&app);
    let signed_in = owner.submit("/signin", "/signin", &[("email", "owner@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(signed_in.status, StatusCode::SEE_OTHER);
    assert_eq!(workspace_id(&owner.get("/settings").await.text()), ws);
    let invited =
        owner.submit("/settings", "/settings/invitations", &[("email", "vera@example.com"), ("role", "author")]).await;
    assert_eq!(invited.status, StatusCode::OK);
    let path = link_path(app.mails().last().unwrap(), "http://studio.test/invitations/");
    let mut vera = Browser::new(&app);
    let joined = vera.submit(&path, &path, &[("display_name", "Vera"), ("password", PASSWORD)]).await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER, "{}", joined.text());
}

/// The path of the first link in a mail that starts with `prefix`.
fn link_path(mail: &str, prefix: &str) -> String {
    let start = mail.find(prefix).expect("a link") + "http://studio.test".len();
    mail[start..].split_whitespace().next().unwrap().to_owned()
}

fn screen_ids(html: &str) -> Vec<String> {
    html.split("<li class=\"card\" id=\"screen-")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_owned())
        .collect()
}

async fn every_block_kind_has_a_form_a_live_preview_and_screens_drag_into_order(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let created = ada.submit("/", "/courses", &[("title", "Kinds")]).await;
    let course = location(&created).to_owned();
    let id = course.trim_start_matches("/courses/").to_owned();
    for title in ["One", "Two", "Three"] {
        ada.submit(&course, &format!("{course}/screens"), &[("title", title)]).await;
    }
    let page = ada.get(&course).await.text();
    let ids = screen_ids(&page);
    let screen = ids[0].as_str();
    assert!(page.contains(&format!("data-reorder=\"{course}/screen-order\"")), "screens can be dragged: {page}");
    assert!(page.contains("<option value=\"stack\">Cards to turn</option>") && !page.contains("value=\"scorm\""));

    // Each kind: its own page with its own fields, then saved.
    type Fields<'a> = &'a [(&'a str, &'a str)];
    let kinds: [(&str, &str, Fields); 12] = [
        ("heading", "f-block_text", &[("block_text", "Before you start")]),
        ("quote", "f-attribution", &[("block_text", "Stay calm."), ("attribution", "The fire chief")]),
        ("image", "f-alt", &[("url", "https://example.com/exit.png"), ("alt", "The exit sign")]),
        ("video", "f-url", &[("url", "https://example.com/drill.mp4")]),
        ("list", "f-items", &[("items", "Stop\nDrop\nRoll")]),
        ("button", "f-block_text", &[("block_text", "I am ready")]),
        ("divider", "nothing to fill in", &[]),
        ("stack", "f-cards", &[("cards", "Fire | Call 112\nSmoke | Stay low")]),
        (
            "multiple_response",
            "Numbers of the right options",
            &[
                ("block_text", "Which are exits?"),
                ("options", "Door\nWindow\nLift"),
                ("correct", "1, 2"),
                ("feedback", "Never the lift."),
            ],
        ),
        (
            "true_false",
            "f-answer",
            &[("block_text", "Lifts are safe."), ("answer", "false"), ("feedback", "They stop.")],
        ),
        (
            "multiple_choice",
            "Number of the right option",
            &[("block_text", "Oil fire?"), ("options", "Water\nFoam"), ("correct", "2")],
        ),
        ("audio", "f-transcript", &[("url", "https://example.com/alarm.mp3"), ("transcript", "The alarm rings.")]),
    ];
    for (kind, marker, fields) in kinds {
        let form = ada.get(&format!("{course}/blocks/new?screen={screen}&type={kind}")).await;
        assert_eq!(form.status, StatusCode::OK, "{kind}");
        let html = form.text();
        assert!(html.contains(marker) && html.contains("Add the block"), "{kind}: {html}");
        assert!(html.contains(&format!("data-draft=\"{course}/draft\"")) && html.contains("id=\"live-preview\""));
        let mut all = vec![("screen", screen), ("type", kind)];
        all.extend_from_slice(fields);
        let added = ada.submit(&course, &format!("{course}/blocks"), &all).await;
        assert_eq!(added.status, StatusCode::SEE_OTHER, "{kind}: {}", added.text());
    }
    let stored = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    let blocks = stored.screens[0]["blocks"].as_array().unwrap().clone();
    let types: Vec<&str> = blocks.iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "heading",
            "quote",
            "image",
            "video",
            "list",
            "button",
            "divider",
            "stack",
            "multiple_response",
            "true_false",
            "multiple_choice",
            "audio"
        ]
    );
    assert_eq!(blocks[11]["transcript"], "The alarm rings.");
    assert_eq!(
        blocks[7]["stackCards"],
        serde_json::json!([{ "front": "Fire", "back": "Call 112" }, { "front": "Smoke", "back": "Stay low" }])
    );
    assert_eq!(
        (blocks[8]["correctIndexes"].clone(), blocks[8]["feedback"].clone()),
        (serde_json::json!([0, 1]), serde_json::json!("Never the lift."))
    );
    assert_eq!(blocks[2]["alt"], "The exit sign");

    // A refused block comes back on its kind's page, the problem beside its field.
    let empty =
        ada.submit(&course, &format!("{course}/blocks"), &[("screen", screen), ("type", "stack"), ("cards", "")]).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        empty.text().contains("id=\"e-cards\"") && empty.text().contains("Add a block: Cards to turn"),
        "{}",
        empty.text()
    );
    let unsafe_url = ada
        .submit(
            &course,
            &format!("{course}/blocks"),
            &[("screen", screen), ("type", "image"), ("url", "javascript:alert(1)")],
        )
        .await;
    assert!(unsafe_url.text().contains("id=\"e-url\""), "{}", unsafe_url.text());
    assert_eq!(ada.get(&format!("{course}/blocks/new?screen={screen}&type=scorm")).await.status, StatusCode::NOT_FOUND);
    assert_eq!(ada.get(&format!("{course}/blocks/new?screen=scr_nope&type=text")).await.status, StatusCode::NOT_FOUND);

    // An edit page starts from the stored block.
    let stack_id = blocks[7]["id"].as_str().unwrap();
    let edit = format!("{course}/screens/{screen}/blocks/{stack_id}");
    assert!(ada.get(&edit).await.text().contains("Fire | Call 112\nSmoke | Stay low</textarea>"));

    // The live preview: the screen as the player shows it, nothing saved.
    let draft = format!("{course}/draft");
    let live = ada
        .submit(
            &edit,
            &draft,
            &[("screen", screen), ("block", stack_id), ("type", "stack"), ("cards", "Flood | Go up")],
        )
        .await;
    assert_eq!(live.status, StatusCode::OK);
    let answer = live.json();
    assert_eq!(answer["screenIndex"], 0);
    assert_eq!(answer["screen"]["blocks"][7]["stackCards"], serde_json::json!([{ "front": "Flood", "back": "Go up" }]));
    assert!(answer["screen"]["blocks"][8].get("correctIndexes").is_none(), "the preview gets no answers");
    let still = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    assert_eq!(still.screens[0]["blocks"][7]["stackCards"][0]["front"], "Fire", "nothing is saved");
    let new_one = ada
        .submit(&course, &draft, &[("screen", ids[1].as_str()), ("type", "text"), ("block_text", "Typed")])
        .await
        .json();
    assert_eq!(
        (new_one["screenIndex"].clone(), new_one["screen"]["blocks"][0]["text"].clone()),
        (serde_json::json!(1), serde_json::json!("Typed"))
    );
    let half =
        ada.submit(&edit, &draft, &[("screen", screen), ("block", stack_id), ("type", "stack"), ("cards", "")]).await;
    assert_eq!(half.status, StatusCode::OK, "a half-typed block is the preview's normal state");
    assert_eq!(half.json()["screen"], serde_json::Value::Null);
    assert!(half.json()["message"].as_str().unwrap().contains("stackCards"), "{}", half.text());
    let forged = ada.request(Method::POST, &draft, Some(format!("screen={screen}&type=text&block_text=x"))).await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN, "the CSRF token is required");
    // The player in the preview frame takes the draft from its own origin only.
    let player = ada.get(&format!("{course}/preview")).await.text();
    assert!(player.contains("event.origin !== location.origin") && player.contains("svc-draft"));
    let script = ada.get("/_studio/studio.js").await;
    assert_eq!(script.status, StatusCode::OK);
    assert!(script.text().contains("data-draft") && script.text().contains("draggable"));

    // Dragging posts the whole order; a wrong order changes nothing.
    let reversed = format!("{},{},{}", ids[2], ids[1], ids[0]);
    let dragged = ada.submit(&course, &format!("{course}/screen-order"), &[("order", reversed.as_str())]).await;
    assert_eq!(dragged.status, StatusCode::SEE_OTHER);
    assert_eq!(screen_ids(&ada.get(&course).await.text()), vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]);
    let partial = format!("{},{}", ids[0], ids[1]);
    let wrong = ada.submit(&course, &format!("{course}/screen-order"), &[("order", partial.as_str())]).await;
    assert_eq!(wrong.status, StatusCode::BAD_REQUEST);
    assert!(wrong.text().contains("every screen id"), "{}", wrong.text());
    assert_eq!(screen_ids(&ada.get(&course).await.text()), vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]);
}

async fn media_uploads_are_typed_by_their_bytes_limited_and_served_sandboxed(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let page = ada.get("/media").await;
    assert_eq!(page.status, StatusCode::OK);
    assert!(page.text().contains("No files yet") && page.text().contains("aria-current=\"page\">Media"));
    let png = b"\x89PNG\r\n\x1a\nnot really an image, but typed by its first bytes".to_vec();
    let sent = ada.upload_media("exit map.png", &png, "text/html").await;
    assert_eq!(sent.status, StatusCode::SEE_OTHER, "{}", sent.text());
    let listed = ada.get("/media").await.text();
    assert!(listed.contains("exit map.png") && listed.contains("(image&#x2f;png)"), "{listed}");
    let marker = "<code id=\"url-";
    let at = listed.find(marker).expect("the file's address") + marker.len();
    let id: String = listed[at..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    assert!(
        listed.contains(&format!("http:&#x2f;&#x2f;studio.test&#x2f;v1&#x2f;embed&#x2f;media&#x2f;{id}")),
        "absolute: {listed}"
    );

    // Served without a session, as tenant content.
    let served = app.send(Method::GET, &format!("/v1/embed/media/{id}"), None, None).await;
    assert_eq!(served.status, StatusCode::OK);
    assert_eq!(served.body.as_ref(), png.as_slice());
    assert_eq!(served.headers["content-type"], "image/png");
    assert!(served.headers["content-security-policy"].to_str().unwrap().starts_with("sandbox"));
    assert_eq!(served.headers["x-content-type-options"], "nosniff");
    assert_eq!(served.headers["access-control-allow-origin"], "*");
    assert!(served.headers.get("set-cookie").is_none());
    let missing = app.send(Method::GET, "/v1/embed/media/med_nope", None, None).await;
    assert_eq!((missing.status, missing.error()), (StatusCode::NOT_FOUND, "not_found".to_owned()));

    // The bytes decide: a script named .png is refused beside the field.
    let svg = ada.upload_media("evil.png", b"<svg onload=alert(1)>", "text/html").await;
    assert_eq!(svg.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(svg.text().contains("id=\"e-file\"") && svg.text().contains("is not an image"), "{}", svg.text());

    // 25 MB and 5 MB are decimal: exactly the limit passes, one byte more is 413.
    let mut big = vec![0_u8; 25_000_000];
    big[..8].copy_from_slice(b"\x89PNG\r\n\x1a\n");
    assert_eq!(ada.upload_media("big.png", &big, "text/html").await.status, StatusCode::SEE_OTHER);
    big.push(0);
    let over = ada.upload_media("bigger.png", &big, "application/json").await;
    assert_eq!(over.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(over.error(), "payload_too_large");
    assert_eq!(over.json()["message"], "the upload exceeds the 25000000 byte limit");
    let page_over = ada.upload_media("bigger.png", &big, "text/html").await;
    assert_eq!(page_over.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(page_over.text().contains("25000000 byte limit"));
    let mut font = vec![0_u8; 5_000_001];
    font[..4].copy_from_slice(b"wOF2");
    let font_over = ada.upload_media("brand.woff2", &font, "application/json").await;
    assert_eq!(
        (font_over.status, font_over.json()["message"].clone()),
        (StatusCode::PAYLOAD_TOO_LARGE, serde_json::json!("a font exceeds the 5000000 byte limit"))
    );
    font.pop();
    assert_eq!(ada.upload_media("brand.woff2", &font, "text/html").await.status, StatusCode::SEE_OTHER);

    // Without the page's token nothing is read or stored.
    let forged = ada.upload_media_with("/media", "x.png", &png, "text/html").await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);
    let listed = ada.get("/media").await.text();
    assert_eq!(listed.matches("<code id=\"url-").count(), 3, "the PNG, the 25 MB file and the font");
}

async fn a_theme_takes_an_uploaded_font_and_logo_into_the_player(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    app.courses.set_plan(&ws, Plan::Scale).await.unwrap();
    let created = ada.submit("/", "/courses", &[("title", "Fire safety")]).await;
    let course = location(&created).to_owned();
    let mut font = b"wOF2".to_vec();
    font.extend_from_slice(&[0; 64]);
    ada.upload_media("Brand Sans.woff2", &font, "text/html").await;
    ada.upload_media("logo.png", b"\x89PNG\r\n\x1a\nlogo", "text/html").await;
    let media = app.courses.store().media_of(&ws, 10).await.unwrap();
    let (font_id, logo_id) = (media[1].id.clone(), media[0].id.clone());
    assert_eq!((media[1].kind.as_str(), media[0].kind.as_str()), ("font", "image"));

    // The form offers fonts for the font and images for the logo, and the
    // API's rules refuse a file of the wrong kind beside its field.
    let page = ada.get("/themes").await.text();
    assert!(page.contains(&format!("<option value=\"{font_id}\">Brand Sans.woff2</option>")), "{page}");
    assert!(page.contains(&format!("<option value=\"{logo_id}\">logo.png</option>")));
    let wrong = ada.submit("/themes", "/themes", &[("name", "Brand"), ("accent", "#aa0000"), ("font", &logo_id)]).await;
    assert_eq!(wrong.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        wrong.text().contains("id=\"e-font\"") && wrong.text().contains("not an uploaded font"),
        "{}",
        wrong.text()
    );
    let made = ada
        .submit(
            "/themes",
            "/themes",
            &[("name", "Brand"), ("accent", "#aa0000"), ("font", &font_id), ("logo", &logo_id)],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.text());
    let listed = ada.get("/themes").await.text();
    assert!(listed.contains("Brand Sans.woff2") && listed.contains(">logo.png</td>"), "{listed}");

    // Chosen for the course, the preview (the player) loads both.
    let page = ada.get(&course).await.text();
    let start = page.find("<option value=\"thm_").expect("the theme choice") + "<option value=\"".len();
    let theme_id = page[start..].split('"').next().unwrap().to_owned();
    ada.submit(&course, &course, &[("course_title", "Fire safety"), ("passing_score", ""), ("theme", &theme_id)]).await;
    let player = ada.get(&format!("{course}/preview")).await.text();
    assert!(
        player.contains(&format!("\"fontMediaId\":\"{font_id}\""))
            && player.contains(&format!("\"logoMediaId\":\"{logo_id}\""))
    );
    assert!(player.contains("new FontFace('course-font'") && player.contains("logo.src = media("));
    // The studio's SCORM export carries both files, listed in the manifest.
    let zip = ada.get(&format!("{course}/scorm?version=1.2")).await;
    assert_eq!(zip.status, StatusCode::OK);
    let bytes = zip.body.to_vec();
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("<file href=\"theme/font.woff2\"/>") && text.contains("<file href=\"theme/logo.png\"/>"),
        "manifest"
    );
    assert!(text.contains(r#"{"font":"theme/font.woff2","logo":"theme/logo.png"}"#), "the package's player loads them");
    assert!(bytes.windows(font.len()).any(|w| w == font.as_slice()), "the font's bytes are in the package");
    // Another workspace's file cannot be named over the API.
    let other = app.courses.create_workspace("Other", Plan::Scale).await.unwrap();
    let key = app.courses.create_key(&other.id, "k", false).await.unwrap().1;
    let theft = app.post("/v1/themes", key.expose(), &serde_json::json!({ "name": "x", "logoMediaId": logo_id })).await;
    assert_eq!((theft.status, theft.issue_paths()), (StatusCode::BAD_REQUEST, vec!["logoMediaId".to_owned()]));
    // Below Scale the player shows neither.
    app.courses.set_plan(&ws, Plan::Sandbox).await.unwrap();
    assert!(!ada.get(&format!("{course}/preview")).await.text().contains(&font_id));
}

async fn screens_and_quiz_blocks_are_edited_and_links_minted(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let created = ada.submit("/", "/courses", &[("title", "Fire safety")]).await;
    let course = location(&created).to_owned();
    let id = course.trim_start_matches("/courses/").to_owned();
    for title in ["One", "Two", "Three"] {
        let added = ada.submit(&course, &format!("{course}/screens"), &[("title", title)]).await;
        assert_eq!(added.status, StatusCode::SEE_OTHER);
    }
    let ids = screen_ids(&ada.get(&course).await.text());
    assert_eq!(ids.len(), 3);

    // Down, up, duplicate, delete: the order the page shows follows.
    let moved = ada.submit(&course, &format!("{course}/screens/{}/down", ids[0]), &[]).await;
    assert_eq!(moved.status, StatusCode::SEE_OTHER);
    assert_eq!(screen_ids(&ada.get(&course).await.text()), vec![ids[1].clone(), ids[0].clone(), ids[2].clone()]);
    ada.submit(&course, &format!("{course}/screens/{}/up", ids[2]), &[]).await;
    assert_eq!(screen_ids(&ada.get(&course).await.text()), vec![ids[1].clone(), ids[2].clone(), ids[0].clone()]);
    let first_up = ada.submit(&course, &format!("{course}/screens/{}/up", ids[1]), &[]).await;
    assert_eq!(first_up.status, StatusCode::SEE_OTHER, "the first screen stays first");
    ada.submit(&course, &format!("{course}/screens/{}/duplicate", ids[2]), &[]).await;
    let page = ada.get(&course).await.text();
    let after = screen_ids(&page);
    assert_eq!(after.len(), 4);
    assert_eq!(after[1], ids[2]);
    assert!(page.contains("3. Three"), "the copy follows the original: {page}");
    ada.submit(&course, &format!("{course}/screens/{}/delete", after[2]), &[]).await;
    assert_eq!(screen_ids(&ada.get(&course).await.text()), vec![ids[1].clone(), ids[2].clone(), ids[0].clone()]);
    let unknown = ada.submit(&course, &format!("{course}/screens/{}/sideways", ids[0]), &[]).await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);

    // Quiz blocks: a question with options and a true/false; refusals land beside their field.
    let screen = ids[0].as_str();
    let blocks = format!("{course}/blocks");
    let no_answer = ada
        .submit(
            &course,
            &blocks,
            &[
                ("screen", screen),
                ("type", "multiple_choice"),
                ("block_text", "Which for oil?"),
                ("options", "Water\nFoam"),
                ("correct", "7"),
            ],
        )
        .await;
    assert_eq!(no_answer.status, StatusCode::UNPROCESSABLE_ENTITY);
    let html = no_answer.text();
    assert!(html.contains("id=\"e-correct\""), "{html}");
    assert!(html.contains("Which for oil?"), "values kept: {html}");
    let mc = ada
        .submit(
            &course,
            &blocks,
            &[
                ("screen", screen),
                ("type", "multiple_choice"),
                ("block_text", "Which for oil?"),
                ("options", "Water\r\nFoam\n"),
                ("correct", "2"),
            ],
        )
        .await;
    assert_eq!(mc.status, StatusCode::SEE_OTHER);
    let tf = ada
        .submit(
            &course,
            &blocks,
            &[("screen", screen), ("type", "true_false"), ("block_text", "Use the lifts."), ("answer", "false")],
        )
        .await;
    assert_eq!(tf.status, StatusCode::SEE_OTHER);
    let stored = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    let quiz = stored.screens.iter().find(|s| s["id"] == screen).unwrap()["blocks"].as_array().unwrap().clone();
    assert_eq!(quiz[0]["options"], serde_json::json!(["Water", "Foam"]));
    assert_eq!(quiz[0]["correctIndex"], 1);
    assert_eq!(quiz[1]["answer"], false);
    let page = ada.get(&course).await.text();
    assert!(page.contains("multiple choice</span> Which for oil?"), "{page}");
    let player = ada.get(&format!("{course}/preview")).await.text();
    assert!(
        player.contains("Which for oil?") && !player.contains("correctIndex"),
        "answers never reach the player: {player}"
    );
    // Editing a question: its page holds the stored values; the API's rules apply.
    let mc_id = quiz[0]["id"].as_str().unwrap();
    let edit = format!("{course}/screens/{screen}/blocks/{mc_id}");
    let page = ada.get(&edit).await.text();
    assert!(page.contains("Water\nFoam</textarea>") && page.contains("value=\"2\""), "{page}");
    let wrong = ada
        .submit(&edit, &edit, &[("block_text", "Which for oil?"), ("options", "Water\nFoam"), ("correct", "5")])
        .await;
    assert_eq!(wrong.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(wrong.text().contains("id=\"e-correct\""), "{}", wrong.text());
    let saved = ada
        .submit(
            &edit,
            &edit,
            &[("block_text", "Which extinguisher for oil?"), ("options", "Water\nFoam\nSand"), ("correct", "3")],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let stored = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    let edited = stored.screens.iter().find(|s| s["id"] == screen).unwrap()["blocks"][0].clone();
    assert_eq!(
        (edited["question"].as_str(), edited["correctIndex"].as_u64()),
        (Some("Which extinguisher for oil?"), Some(2))
    );
    assert_eq!(edited["type"], "multiple_choice", "the kind stays");
    assert_eq!(ada.get(&format!("{course}/screens/{screen}/blocks/blk_nope")).await.status, StatusCode::NOT_FOUND);

    let block_id = quiz[1]["id"].as_str().unwrap();
    let deleted = ada.submit(&course, &format!("{course}/screens/{screen}/blocks/{block_id}/delete"), &[]).await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert!(!ada.get(&course).await.text().contains("Use the lifts."));

    // Settings: the passing score is checked like the API's.
    let bad = ada.submit(&course, &course, &[("course_title", "Fire safety"), ("passing_score", "150")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("id=\"e-passing_score\""), "{}", bad.text());
    assert!(
        ada.get(&course)
            .await
            .text()
            .contains(r#"name="retry" type="checkbox" value="on" aria-describedby="retry-hint" checked"#),
        "a new course allows a retry, and its box is ticked"
    );
    // An unticked retry box: one attempt per learner.
    let saved = ada.submit(&course, &course, &[("course_title", "Fire safety at work"), ("passing_score", "80")]).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    let stored = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    assert_eq!((stored.title.as_str(), stored.passing_score), ("Fire safety at work", Some(80)));
    assert!(!stored.allows_retry());
    assert!(!ada.get(&course).await.text().contains(r#"aria-describedby="retry-hint" checked"#));
    let fields = [("course_title", "Fire safety at work"), ("passing_score", "80"), ("retry", "on")];
    ada.submit(&course, &course, &fields).await;
    assert!(app.courses.store().course_by_id(&id).await.unwrap().unwrap().allows_retry());

    // The embed link builder: shown once, and it opens the published course for that learner.
    ada.submit(&course, &format!("{course}/status"), &[("status", "published")]).await;
    let minted = ada.submit(&course, &format!("{course}/embed-link"), &[("learner", "emp-42"), ("days", "7")]).await;
    assert_eq!(minted.status, StatusCode::OK);
    assert_eq!(minted.headers["cache-control"], "no-store");
    let html = minted.text();
    let marker = "<code id=\"embed-link\" class=\"wide\">";
    let start = html.find(marker).unwrap() + marker.len();
    let link = html[start..].split('<').next().unwrap().replace("&#x2f;", "/").replace("&amp;", "&");
    assert!(link.starts_with("http://studio.test/v1/embed/") && link.contains("learner=emp-42"), "{link}");
    let opened = app.send(Method::GET, link.trim_start_matches("http://studio.test"), None, None).await;
    assert_eq!(opened.status, StatusCode::OK, "{}", opened.text());
    let no_learner = ada.submit(&course, &format!("{course}/embed-link"), &[("learner", ""), ("days", "7")]).await;
    assert_eq!(no_learner.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(no_learner.text().contains("id=\"e-learner\""), "{}", no_learner.text());
}

async fn learner_count(app: &TestApp, key: &str) -> usize {
    app.get("/v1/identities?limit=5000", key).await.json()["data"].as_array().unwrap().len()
}

/// The value of the hidden `csv` field of a preview, unescaped.
fn hidden_csv(html: &str) -> String {
    let marker = "name=\"csv\" value=\"";
    let start = html.find(marker).expect("the import form") + marker.len();
    html[start..]
        .split('"')
        .next()
        .unwrap()
        .replace("&#x2f;", "/")
        .replace("&quot;", "\"")
        .replace("&#x27;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
}

async fn a_thousand_learners_are_previewed_then_imported(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let (_, key) = app.courses.create_key(&ws, "ci", false).await.unwrap();

    // Problems are shown per row and nothing is written.
    let bad = ada
        .upload(
            "/learners",
            "/learners/preview",
            "Name,externalId,email\nAda,u1,ada@example.com\nBob,u2,not-an-address\n,u1,\n",
        )
        .await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY, "{}", bad.text());
    let html = bad.text();
    assert!(html.contains("2 of 3 rows have a problem"), "{html}");
    assert!(html.contains("email must be an email address") && html.contains("earlier line"), "{html}");
    assert!(!html.contains("action=\"/learners/import\""), "no import button: {html}");
    assert_eq!(learner_count(&app, key.expose()).await, 0);

    // 1,001 rows: refused whole, beside the file field.
    let too_many: String = std::iter::once("externalId,name\n".to_owned())
        .chain((0..1_001).map(|i| format!("u{i},Learner {i}\n")))
        .collect();
    let refused = ada.upload("/learners", "/learners/preview", &too_many).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.text().contains("id=\"e-file\"") && refused.text().contains("at most 1000"), "{}", refused.text());

    // 1,000 rows: previewed, then imported in one go.
    let thousand: String = std::iter::once("externalId,name,email\n".to_owned())
        .chain((0..1_000).map(|i| format!("u{i},\"Learner, {i}\",l{i}@example.com\n")))
        .collect();
    let preview = ada.upload("/learners", "/learners/preview", &thousand).await;
    assert_eq!(preview.status, StatusCode::OK, "{}", &preview.text()[..500.min(preview.text().len())]);
    let html = preview.text();
    assert!(html.contains("1000 learners are ready to import"), "{}", &html[..2000.min(html.len())]);
    assert_eq!(learner_count(&app, key.expose()).await, 0, "a preview writes nothing");
    let csv = hidden_csv(&html);
    assert_eq!(csv, thousand, "the preview carries the file to the import");
    let imported = ada.submit("/learners", "/learners/import", &[("csv", csv.as_str())]).await;
    assert_eq!(imported.status, StatusCode::SEE_OTHER, "{}", imported.text());
    let page = ada.get("/learners").await.text();
    assert!(page.contains("Imported: 1000 new learners, 0 updated."), "{page}");
    assert!(page.contains("Learner, 0") && page.contains("Next"), "the first page of 25: {page}");
    assert_eq!(learner_count(&app, key.expose()).await, 1_000);

    // Again: every learner is updated, none created.
    let again = ada.submit("/learners", "/learners/import", &[("csv", csv.as_str())]).await;
    assert_eq!(again.status, StatusCode::SEE_OTHER);
    assert!(ada.get("/learners").await.text().contains("Imported: 0 new learners, 1000 updated."));
    // A file changed after its preview is checked again on import.
    let tampered = ada.submit("/learners", "/learners/import", &[("csv", "externalId,email\nx,broken\n")]).await;
    assert_eq!(tampered.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(
        tampered.text().contains("Nothing was imported: line 2: email must be an email address."),
        "{}",
        tampered.text()
    );
}

async fn themes_need_scale_and_apply_to_the_player_until_a_downgrade(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let created = ada.submit("/", "/courses", &[("title", "Fire safety")]).await;
    let course = location(&created).to_owned();

    // Sandbox: the page says which plan has themes; a post anyway is refused.
    let page = ada.get("/themes").await.text();
    assert!(page.contains("Themes are on the Scale plan and up") && !page.contains("action=\"/themes\""), "{page}");
    let refused = ada.submit("/settings", "/themes", &[("name", "Brand"), ("accent", "#aa0000")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.text().contains("Scale"), "{}", refused.text());
    assert!(!ada.get(&course).await.text().contains("id=\"f-theme\""), "no theme choice below Scale");

    // Scale: a theme, checked like the API's, chosen for the course, shown by the player.
    app.courses.set_plan(&ws, Plan::Scale).await.unwrap();
    let bad = ada.submit("/themes", "/themes", &[("name", "Brand"), ("accent", "red; background:url(x)")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("id=\"e-accent\""), "{}", bad.text());
    let made = ada.submit("/themes", "/themes", &[("name", "Brand"), ("accent", "#aa0000")]).await;
    assert_eq!(made.status, StatusCode::SEE_OTHER);
    assert!(ada.get("/themes").await.text().contains("#aa0000"));
    let page = ada.get(&course).await.text();
    let marker = "<option value=\"thm_";
    let start = page.find(marker).expect("the theme choice") + "<option value=\"".len();
    let theme_id = page[start..].split('"').next().unwrap().to_owned();
    let saved = ada
        .submit(&course, &course, &[("course_title", "Fire safety"), ("passing_score", ""), ("theme", &theme_id)])
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.text());
    assert!(ada.get(&course).await.text().contains(&format!("<option value=\"{theme_id}\" selected>")));
    assert!(ada.get(&format!("{course}/preview")).await.text().contains("#aa0000"), "the player shows the theme");

    // Below Scale again: the player shows the default look, the course keeps its theme.
    app.courses.set_plan(&ws, Plan::Sandbox).await.unwrap();
    assert!(!ada.get(&format!("{course}/preview")).await.text().contains("#aa0000"));
    let id = course.trim_start_matches("/courses/");
    assert_eq!(
        app.courses.store().course_by_id(id).await.unwrap().unwrap().theme_id.as_deref(),
        Some(theme_id.as_str())
    );
    let api = app
        .post(
            "/v1/themes",
            app.courses.create_key(&ws, "k", false).await.unwrap().1.expose(),
            &serde_json::json!({"name": "x"}),
        )
        .await;
    assert_eq!(api.status, StatusCode::FORBIDDEN);
}

async fn certificate_templates_are_edited_and_previewed_as_pdf(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    // Below Scale the page explains the plan and every action is refused
    // naming it; nothing is written.
    let page = ada.get("/certificates").await.text();
    assert!(page.contains("Certificate templates are on the Scale plan and up"), "{page}");
    assert!(!page.contains("action=\"/certificates\""), "no form below Scale");
    for action in ["/certificates", "/certificates/preview"] {
        let refused = ada.submit("/certificates", action, &[("name", "Award")]).await;
        assert_eq!(refused.status, StatusCode::FORBIDDEN, "{action}");
        assert!(refused.text().contains("Scale"), "{}", refused.text());
    }

    app.courses.set_plan(&ws, Plan::Scale).await.unwrap();
    let empty = ada.get("/certificates").await.text();
    assert!(empty.contains("No certificate templates yet") && empty.contains("formaction=\"/certificates/preview\""));
    // A title over 200 characters is refused beside its field.
    let long = "x".repeat(201);
    let refused = ada.submit("/certificates", "/certificates", &[("name", "Award"), ("title", &long)]).await;
    assert_eq!(refused.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(refused.text().contains("id=\"e-title\"") && refused.text().contains("at most 200"), "{}", refused.text());
    let made = ada
        .submit(
            "/certificates",
            "/certificates",
            &[("name", "Award"), ("title", "Award for {{course}}"), ("body", "scored {{score}} in")],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.text());
    let edit = location(&made).to_owned();
    assert!(edit.starts_with("/certificates/cert_") || edit.starts_with("/certificates/"), "{edit}");
    let template_id = edit.trim_start_matches("/certificates/").to_owned();
    let html = ada.get(&edit).await.text();
    assert!(
        html.contains("value=\"Award for {{course}}\"") && html.contains(">scored {{score}} in</textarea>"),
        "{html}"
    );
    assert!(ada.get("/certificates").await.text().contains("<td data-label=\"Title\">Award for {{course}}</td>"));

    // The preview prints the form as it stands, unsaved, for the person
    // signed in; with a course, its title and its theme's look.
    let preview = ada
        .submit(&edit, "/certificates/preview", &[("name", "Award"), ("title", "Well done {{learner}}"), ("body", "")])
        .await;
    assert_eq!(preview.status, StatusCode::OK);
    assert_eq!(preview.headers["content-type"], "application/pdf");
    let lines = crate::support::pdf_lines(&preview.body);
    assert_eq!(
        lines[..5],
        ["Well done Ada", "This certifies that", "Ada", "has successfully completed", "A sample course"]
    );
    assert_eq!(ada.get(&edit).await.text().matches("Well done").count(), 0, "the preview saved nothing");

    let owner = courses_core::Access {
        workspace: app.courses.workspace(&ws).await.unwrap(),
        key_id: String::new(),
        read_only: false,
    };
    let font = app
        .courses
        .upload_media(&owner, "brand.ttf", courses_core::pdf::testing::tiny_font("Award fo Fire safety"))
        .await
        .unwrap();
    let created = ada.submit("/", "/courses", &[("title", "Fire safety")]).await;
    let course = location(&created).to_owned();
    let course_id = course.trim_start_matches("/courses/").to_owned();
    ada.submit("/themes", "/themes", &[("name", "Brand"), ("accent", "#aa0000"), ("font", &font.id)]).await;
    let page = ada.get(&course).await.text();
    let start = page.find("<option value=\"thm_").expect("the theme choice") + "<option value=\"".len();
    let theme_id = page[start..].split('"').next().unwrap().to_owned();
    assert!(page.contains(&format!("<option value=\"{template_id}\">Award</option>")), "{page}");
    let saved = ada
        .submit(
            &course,
            &course,
            &[
                ("course_title", "Fire safety"),
                ("passing_score", ""),
                ("theme", &theme_id),
                ("certificate", &template_id),
            ],
        )
        .await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER, "{}", saved.text());
    let stored = app.courses.course(&owner, &course_id).await.unwrap();
    assert_eq!(stored.certificate_id.as_deref(), Some(template_id.as_str()));
    let themed = ada
        .submit(
            &edit,
            "/certificates/preview",
            &[("name", "Award"), ("title", "Award for {{course}}"), ("body", ""), ("course", &course_id)],
        )
        .await;
    let pdf = String::from_utf8_lossy(&themed.body).into_owned();
    assert!(pdf.contains("/FontFile2") && pdf.contains("0.667 0.000 0.000 RG"), "the course's theme");
    assert_eq!(crate::support::pdf_lines(&themed.body)[0], "Award for Fire safety");

    // Saving and deleting; a viewer could not (the role's rule), and an
    // unknown template is 404.
    let saved = ada.submit(&edit, &edit, &[("name", "Award 2"), ("title", ""), ("body", "")]).await;
    assert_eq!(saved.status, StatusCode::SEE_OTHER);
    assert!(ada.get(&edit).await.text().contains("Certificate template: Award 2"));
    assert_eq!(ada.get("/certificates/ctp_unknown").await.status, StatusCode::NOT_FOUND);
    let deleted = ada.submit(&edit, &format!("{edit}/delete"), &[]).await;
    assert_eq!(deleted.status, StatusCode::SEE_OTHER);
    assert!(ada.get("/certificates").await.text().contains("No certificate templates yet"));
}

async fn webhooks_are_made_tested_and_logged_in_the_studio(app: TestApp) {
    use platform::outbound::{AllowList, Outbound};
    let receiver = crate::support::Receiver::start(|_, _| (204, String::new())).await;
    let app = app.with_courses(|c| c.with_outbound(Outbound::guarded(AllowList::parse("127.0.0.1").unwrap())));
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let empty = ada.get("/webhooks").await.text();
    assert!(empty.contains("No webhooks yet") && empty.contains("id=\"f-event_course_published\""), "{empty}");

    // Refusals beside their fields: the address, then the events.
    let bad =
        ada.submit("/webhooks", "/webhooks", &[("url", "ftp://example.com"), ("event_course_published", "on")]).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("id=\"e-url\""), "{}", bad.text());
    let url = format!("{}/hooks/studio", receiver.url);
    let none = ada.submit("/webhooks", "/webhooks", &[("url", url.as_str())]).await;
    assert_eq!(none.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(none.text().contains("id=\"e-event_course_published\""), "{}", none.text());

    // Made: the secret is shown this once, on a page no cache keeps.
    let made = ada.submit("/webhooks", "/webhooks", &[("url", url.as_str()), ("event_completion_created", "on")]).await;
    assert_eq!(made.status, StatusCode::OK, "{}", made.text());
    assert_eq!(made.headers["cache-control"], "no-store");
    let html = made.text();
    let start = html.find("<code id=\"secret-value\">").unwrap() + "<code id=\"secret-value\">".len();
    // The page escapes `/` as HTML does; the secret is the text shown.
    let secret = html[start..].split('<').next().unwrap().replace("&#x2f;", "/");
    assert!(secret.starts_with("whsec_"), "{secret}");
    let list = ada.get("/webhooks").await.text();
    let escaped = |text: &str| text.replace('/', "&#x2f;");
    assert!(
        !list.contains(&escaped(&secret)) && list.contains(&escaped(&url)) && list.contains("completion.created"),
        "{list}"
    );
    let start = list.find("href=\"/webhooks/").unwrap() + "href=\"".len();
    let hook_path = list[start..].split('"').next().unwrap().to_owned();
    let hook_id = hook_path.trim_start_matches("/webhooks/").to_owned();
    let detail = ada.get(&hook_path).await.text();
    assert!(detail.contains("No messages yet") && !detail.contains(&escaped(&secret)), "{detail}");

    // A test message: queued, delivered signed with the secret, logged.
    let tested = ada.submit(&hook_path, &format!("{hook_path}/test"), &[]).await;
    assert_eq!((tested.status, location(&tested)), (StatusCode::SEE_OTHER, hook_path.as_str()));
    assert_eq!(app.courses.deliver_due().await.unwrap(), 1);
    let got = receiver.requests();
    assert_eq!(got.len(), 1);
    let body: serde_json::Value = serde_json::from_str(&got[0].body).unwrap();
    assert_eq!(
        (body["type"].clone(), body["data"]["webhookId"].clone()),
        (serde_json::json!("webhook.test"), serde_json::json!(hook_id))
    );
    let header = |name: &str| got[0].headers[name].to_str().unwrap().to_owned();
    let key = crate::plans::b64_decode(secret.trim_start_matches("whsec_"));
    let expected = courses_core::webhooks::sign(
        &key,
        &header("webhook-id"),
        header("webhook-timestamp").parse().unwrap(),
        &got[0].body,
    );
    assert_eq!(header("webhook-signature"), expected, "signed with the secret shown once");
    let detail = ada.get(&hook_path).await.text();
    assert!(
        detail.contains("<code>webhook.test</code>")
            && detail.contains("badge ok\">delivered")
            && detail.contains("HTTP 204"),
        "{detail}"
    );

    // Paused and resumed; the API's twin of the test route.
    ada.submit(&hook_path, &format!("{hook_path}/pause"), &[]).await;
    assert!(ada.get(&hook_path).await.text().contains("badge warn\">paused"));
    ada.submit(&hook_path, &format!("{hook_path}/resume"), &[]).await;
    assert!(ada.get(&hook_path).await.text().contains("badge ok\">active"));
    let key = app.courses.create_key(&ws, "k", false).await.unwrap().1;
    let queued = app.post(&format!("/v1/webhooks/{hook_id}/test"), key.expose(), &serde_json::json!({})).await;
    assert_eq!(queued.status, StatusCode::CREATED, "{}", queued.text());
    assert_eq!(
        (queued.json()["event"].clone(), queued.json()["status"].clone()),
        (serde_json::json!("webhook.test"), serde_json::json!("pending"))
    );
    let read_only = app.courses.create_key(&ws, "r", true).await.unwrap().1;
    let refused = app.post(&format!("/v1/webhooks/{hook_id}/test"), read_only.expose(), &serde_json::json!({})).await;
    assert_eq!((refused.status, refused.error()), (StatusCode::FORBIDDEN, "insufficient_scope".to_owned()));
    let missing = app.post("/v1/webhooks/wh_nope/test", key.expose(), &serde_json::json!({})).await;
    assert_eq!((missing.status, missing.error()), (StatusCode::NOT_FOUND, "not_found".to_owned()));

    let deleted = ada.submit(&hook_path, &format!("{hook_path}/delete"), &[]).await;
    assert_eq!((deleted.status, location(&deleted)), (StatusCode::SEE_OTHER, "/webhooks"));
    assert!(ada.get("/webhooks").await.text().contains("No webhooks yet"));
    assert_eq!(ada.get(&hook_path).await.status, StatusCode::NOT_FOUND);
}

async fn addresses_are_confirmed_before_the_first_sign_in(app: TestApp) {
    let mut bob = Browser::new(&app);
    let done = bob
        .submit("/signup", "/signup", &[("display_name", "Bob"), ("email", "bob@example.com"), ("password", PASSWORD)])
        .await;
    assert_eq!(done.status, StatusCode::OK);
    assert!(bob.get("/").await.text().contains("Create a workspace"), "not signed in yet");
    let first = app.mails().pop().unwrap();
    assert!(first.contains("works once, for 24 hours"), "{first}");

    // Signing in before confirming: a wrong password is refused as ever; the
    // right one mails a fresh link and says to confirm.
    let wrong =
        bob.submit("/signin", "/signin", &[("email", "bob@example.com"), ("password", "not the password")]).await;
    assert_eq!(wrong.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert_eq!(app.mails().len(), 1);
    let right = bob.submit("/signin", "/signin", &[("email", "bob@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(right.status, StatusCode::OK);
    assert!(right.text().contains("Confirm your address before you sign in"), "{}", right.text());
    assert!(
        !right.headers.contains_key("set-cookie")
            || !right.headers["set-cookie"].to_str().unwrap().contains("svc_studio_session")
    );
    let mails = app.mails();
    assert_eq!(mails.len(), 2);

    // The link is stored as its hash, works once, and spends its siblings.
    let path = link_path(&mails[1], "http://studio.test/verify?token=");
    let token = path.trim_start_matches("/verify?token=").to_owned();
    assert_eq!(app.courses.store().use_verification(&token, kernel::Clock::now(&app.clock)).await.unwrap(), None);
    let confirmed = confirm_address(&mut bob, &mails[1]).await;
    assert_eq!((confirmed.status, location(&confirmed)), (StatusCode::SEE_OTHER, "/"));
    assert!(bob.get("/").await.text().contains("No courses yet"));
    let mut other = Browser::new(&app);
    let spent = confirm_address(&mut other, &mails[0]).await;
    assert_eq!(spent.status, StatusCode::BAD_REQUEST, "the first link went with the second");
    assert!(spent.text().contains("This link does not work"));
    let signed_in = other.submit("/signin", "/signin", &[("email", "bob@example.com"), ("password", PASSWORD)]).await;
    assert_eq!(signed_in.status, StatusCode::SEE_OTHER);

    // A link expires after a day; a forged token does nothing.
    let mut carol = Browser::new(&app);
    carol.submit("/signup", "/signup", &[("email", "carol@example.com"), ("password", PASSWORD)]).await;
    let late = app.mails().pop().unwrap();
    app.clock.advance_millis(24 * 3_600_000 + 1);
    assert_eq!(confirm_address(&mut carol, &late).await.status, StatusCode::BAD_REQUEST);
    let forged = carol.submit("/signup", "/verify", &[("token", "forged")]).await;
    assert_eq!(forged.status, StatusCode::BAD_REQUEST);
    // Without the form's token nothing happens.
    let bare = carol.request(Method::POST, "/verify", Some("token=forged".to_owned())).await;
    assert_eq!(bare.status, StatusCode::FORBIDDEN);
    // A password reset proves the address too.
    carol.submit("/reset", "/reset", &[("email", "carol@example.com")]).await;
    let reset = link_path(app.mails().last().unwrap(), "http://studio.test/reset/new?token=");
    let token = reset.trim_start_matches("/reset/new?token=").to_owned();
    carol.submit(&reset, "/reset/new", &[("token", &token), ("password", "a brand new passphrase here")]).await;
    let back = carol
        .submit("/signin", "/signin", &[("email", "carol@example.com"), ("password", "a brand new passphrase here")])
        .await;
    assert_eq!(back.status, StatusCode::SEE_OTHER);
}

async fn people_in_several_workspaces_switch_between_them(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let mut vera = Browser::new(&app);
    vera.submit(
        "/signup",
        "/signup",
        &[
            ("workspace_name", "Vera's Lab"),
            ("display_name", "Vera"),
            ("email", "vera@example.com"),
            ("password", PASSWORD),
        ],
    )
    .await;
    confirm_address(&mut vera, app.mails().last().unwrap()).await;
    assert!(!vera.get("/").await.text().contains("id=\"ws-switch\""), "one workspace: no switcher");

    // Ada invites Vera, who joins with her password and lands in Acme.
    let invited =
        ada.submit("/settings", "/settings/invitations", &[("email", "vera@example.com"), ("role", "author")]).await;
    let html = invited.text();
    let marker = "<code id=\"invite-link\" class=\"wide\">";
    let start = html.find(marker).unwrap() + marker.len();
    let link = html[start..].split('<').next().unwrap().replace("&#x2f;", "/");
    let path = link.trim_start_matches("http://studio.test").to_owned();
    let joined = vera.submit(&path, &path, &[("password", PASSWORD)]).await;
    assert_eq!(joined.status, StatusCode::SEE_OTHER, "{}", joined.text());
    let home = vera.get("/").await.text();
    assert!(home.contains("id=\"ws-switch\""), "{home}");
    let summaries = app.courses.store().workspace_summaries().await.unwrap();
    let id_of = |name: &str| summaries.iter().find(|w| w.workspace.name == name).unwrap().workspace.id.clone();
    let (acme, lab) = (id_of("Acme Academy"), id_of("Vera's Lab"));
    assert!(home.contains(&format!("<option value=\"{acme}\" selected>Acme Academy (author)</option>")), "{home}");
    assert!(home.contains(&format!("<option value=\"{lab}\">Vera&#x27;s Lab (owner)</option>")), "{home}");

    // Switching moves the session: the settings page names the other
    // workspace and its role; a workspace she is not in is not found.
    let switched = vera.submit("/", "/workspace", &[("workspace", &lab)]).await;
    assert_eq!((switched.status, location(&switched)), (StatusCode::SEE_OTHER, "/"));
    let settings = vera.get("/settings").await.text();
    assert_eq!(workspace_id(&settings), lab);
    assert!(settings.contains("<td data-label=\"Role\">owner</td>"), "{settings}");
    let stranger = app.courses.create_workspace("Elsewhere", Plan::Sandbox).await.unwrap();
    let refused = vera.submit("/", "/workspace", &[("workspace", &stranger.id)]).await;
    assert_eq!(refused.status, StatusCode::NOT_FOUND);
    assert_eq!(workspace_id(&vera.get("/settings").await.text()), lab, "unchanged");
    let back = vera.submit("/", "/workspace", &[("workspace", &acme)]).await;
    assert_eq!(back.status, StatusCode::SEE_OTHER);
    assert_eq!(workspace_id(&vera.get("/settings").await.text()), acme);

    // A workspace of her own, made from the settings page: she owns it, is
    // moved to it, and the switcher lists three. A name is required.
    let empty = vera.submit("/settings", "/settings/workspaces", &[("workspace_name", " ")]).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.text().contains("id=\"e-workspace_name\""), "{}", empty.text());
    let made = vera.submit("/settings", "/settings/workspaces", &[("workspace_name", "Vera Consulting")]).await;
    assert_eq!((made.status, location(&made)), (StatusCode::SEE_OTHER, "/"));
    let settings = vera.get("/settings").await.text();
    assert!(
        settings.contains("Vera Consulting") && settings.contains("<td data-label=\"Role\">owner</td>"),
        "{settings}"
    );
    assert!(settings.contains("<span class=\"badge\">sandbox</span>"), "{settings}");
    assert_eq!(vera.get("/").await.text().matches("<option value=\"ws_").count(), 3);
}

async fn uploads_are_chosen_in_image_video_and_audio_forms(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let created = ada.submit("/", "/courses", &[("title", "Alarms")]).await;
    let course = location(&created).to_owned();
    let id = course.trim_start_matches("/courses/").to_owned();
    ada.submit(&course, &format!("{course}/screens"), &[("title", "One")]).await;
    let screen = screen_ids(&ada.get(&course).await.text())[0].clone();
    // Nothing uploaded: the form says where uploads come from.
    let empty = ada.get(&format!("{course}/blocks/new?screen={screen}&type=audio")).await.text();
    assert!(empty.contains("Nothing of this kind is uploaded yet") && empty.contains("id=\"f-transcript\""), "{empty}");

    let mut mp3 = b"ID3\x04\x00\x00\x00\x00\x00\x00".to_vec();
    mp3.extend_from_slice(&[0; 32]);
    ada.upload_media("alarm.mp3", &mp3, "text/html").await;
    ada.upload_media("exit.png", b"\x89PNG\r\n\x1a\nexit", "text/html").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let media = app.courses.store().media_of(&ws, 10).await.unwrap();
    let audio = media.iter().find(|m| m.name == "alarm.mp3").unwrap().id.clone();
    let image = media.iter().find(|m| m.name == "exit.png").unwrap().id.clone();

    // Each form offers only uploads of its kind.
    let form = ada.get(&format!("{course}/blocks/new?screen={screen}&type=audio")).await.text();
    assert!(
        form.contains(&format!("<option value=\"{audio}\">alarm.mp3</option>")) && !form.contains(&image),
        "{form}"
    );
    let form = ada.get(&format!("{course}/blocks/new?screen={screen}&type=image")).await.text();
    assert!(form.contains(&format!("<option value=\"{image}\">exit.png</option>")) && !form.contains(&audio), "{form}");
    assert!(
        !ada.get(&format!("{course}/blocks/new?screen={screen}&type=video"))
            .await
            .text()
            .contains("option value=\"med_")
    );

    // A chosen upload is the block's address on this service, over a typed one.
    let added = ada
        .submit(
            &course,
            &format!("{course}/blocks"),
            &[
                ("screen", &screen),
                ("type", "audio"),
                ("media", &audio),
                ("url", "https://example.com/other.mp3"),
                ("transcript", "The alarm rings twice."),
            ],
        )
        .await;
    assert_eq!(added.status, StatusCode::SEE_OTHER, "{}", added.text());
    ada.submit(
        &course,
        &format!("{course}/blocks"),
        &[("screen", &screen), ("type", "image"), ("media", &image), ("alt", "Exit")],
    )
    .await;
    let stored = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    let blocks = stored.screens[0]["blocks"].as_array().unwrap().clone();
    assert_eq!(
        blocks[0],
        serde_json::json!({ "id": blocks[0]["id"], "type": "audio", "url": format!("http://studio.test/v1/embed/media/{audio}"), "transcript": "The alarm rings twice." })
    );
    assert_eq!(blocks[1]["url"], format!("http://studio.test/v1/embed/media/{image}"));

    // The edit form shows the upload chosen; the player plays the sound
    // with its transcript, and the file is served sandboxed.
    let block_id = blocks[0]["id"].as_str().unwrap();
    let edit = ada.get(&format!("{course}/screens/{screen}/blocks/{block_id}")).await.text();
    assert!(edit.contains(&format!("<option value=\"{audio}\" selected>alarm.mp3</option>")), "{edit}");
    let player = ada.get(&format!("{course}/preview")).await.text();
    assert!(player.contains("case 'audio'") && player.contains("The alarm rings twice."), "{player}");
    let served = ada.get(&format!("/v1/embed/media/{audio}")).await;
    assert_eq!((served.status, served.headers["content-type"].to_str().unwrap()), (StatusCode::OK, "audio/mpeg"));
    // Over the API the audio block keeps the API's rules.
    let key = app.courses.create_key(&ws, "k", false).await.unwrap().1;
    let bad = app
        .post(
            &format!("/v1/courses/{id}/screens/{screen}/blocks"),
            key.expose(),
            &serde_json::json!({ "type": "audio", "url": "javascript:alert(1)" }),
        )
        .await;
    assert_eq!((bad.status, bad.issue_paths()), (StatusCode::BAD_REQUEST, vec!["url".to_owned()]));
}

async fn translations_are_edited_side_by_side_and_played(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let created = ada.submit("/", "/courses", &[("title", "Fire safety")]).await;
    let course = location(&created).to_owned();
    let id = course.trim_start_matches("/courses/").to_owned();
    ada.submit(&course, &format!("{course}/screens"), &[("title", "Exits"), ("text", "Use the stairs.")]).await;
    let tr = format!("{course}/translations");
    // Below Scale: the page explains, saving is refused naming the plan.
    let page = ada.get(&tr).await.text();
    assert!(page.contains("Translations are on the Scale plan and up"), "{page}");
    let refused = ada.submit(&tr, &tr, &[("locale", "fr"), ("t:title", "Sécurité")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);

    app.courses.set_plan(&ws, Plan::Scale).await.unwrap();
    let bad = ada.get(&format!("{tr}?locale=%3Cb%3E")).await;
    assert_eq!(bad.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(bad.text().contains("id=\"e-locale\""), "{}", bad.text());
    let sheet = ada.get(&format!("{tr}?locale=fr")).await.text();
    assert!(sheet.contains("0 of 3 texts translated"), "{sheet}");
    let stored = app.courses.store().course_by_id(&id).await.unwrap().unwrap();
    let screen = stored.screens[0]["id"].as_str().unwrap().to_owned();
    let block = stored.screens[0]["blocks"][0]["id"].as_str().unwrap().to_owned();
    for (key, original) in
        [("title", "Fire safety"), (&format!("{screen}.title"), "Exits"), (&format!("{block}.text"), "Use the stairs.")]
    {
        assert!(sheet.contains(&format!("name=\"t:{key}\"")) && sheet.contains(original), "{key}: {sheet}");
    }
    // Saved: the title and the block, the screen's title left to show the original.
    let saved = ada
        .submit(
            &format!("{tr}?locale=fr"),
            &tr,
            &[
                ("locale", "fr"),
                ("t:title", "Sécurité incendie"),
                (&format!("t:{screen}.title"), " "),
                (&format!("t:{block}.text"), "Prenez l'escalier."),
                ("t:blk_unknown.text", "ignored"),
            ],
        )
        .await;
    assert_eq!((saved.status, location(&saved)), (StatusCode::SEE_OTHER, format!("{tr}?locale=fr").as_str()));
    let sheet = ada.get(&format!("{tr}?locale=fr")).await.text();
    assert!(sheet.contains("2 of 3 texts translated") && sheet.contains("value=\"Sécurité incendie\""), "{sheet}");
    assert!(sheet.contains("Languages of this course: <a href=\"") && sheet.contains(">fr</a>"), "{sheet}");
    // The API sees the same translation, with a ui word set there kept by the next save.
    let key = app.courses.create_key(&ws, "k", false).await.unwrap().1;
    let list = app.get("/v1/translations", key.expose()).await.json();
    let translation = list["data"][0].clone();
    assert_eq!(translation["locale"], "fr");
    assert_eq!(
        translation["strings"],
        serde_json::json!({ "title": "Sécurité incendie", format!("{block}.text"): "Prenez l'escalier." })
    );
    let tid = translation["id"].as_str().unwrap();
    let mut strings = translation["strings"].clone();
    strings["ui.continue"] = serde_json::json!("Continuer");
    app.patch(&format!("/v1/translations/{tid}"), key.expose(), &serde_json::json!({ "strings": strings })).await;
    ada.submit(&format!("{tr}?locale=fr"), &tr, &[("locale", "fr"), ("t:title", "Sécurité")]).await;
    let after = app.get(&format!("/v1/translations/{tid}"), key.expose()).await.json();
    assert_eq!(after["strings"], serde_json::json!({ "ui.continue": "Continuer", "title": "Sécurité" }));
    // The preview plays the language; without it, the original.
    let player = ada.get(&format!("{course}/preview?lang=fr")).await.text();
    assert!(player.contains("Sécurité") && player.contains("Continuer"), "{player}");
    assert!(!ada.get(&format!("{course}/preview")).await.text().contains("Sécurité"));
    // After a downgrade the preview shows the original and the page explains the plan.
    app.courses.set_plan(&ws, Plan::Build).await.unwrap();
    assert!(!ada.get(&format!("{course}/preview?lang=fr")).await.text().contains("Sécurité"));
    assert!(ada.get(&tr).await.text().contains("Translations are on the Scale plan and up"));
}

async fn courses_are_generated_from_a_prompt_and_a_source_file(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let page = ada.get("/generate").await.text();
    assert!(page.contains("Generation is on the Build plan and up"), "{page}");
    let refused = ada.submit("/generate", "/generate", &[("prompt", "Forklifts"), ("screens", "4")]).await;
    assert_eq!(refused.status, StatusCode::FORBIDDEN);
    assert!(refused.text().contains("Build"), "{}", refused.text());

    app.courses.set_plan(&ws, Plan::Build).await.unwrap();
    let page = ada.get("/generate").await.text();
    assert!(page.contains("built-in offline writer</strong> (no model is configured"), "{page}");
    let token = csrf_token(&page);
    let read_as = |name: &'static str| format!("/generate/source?csrf_token={token}&n={name}");

    // A Markdown file fills the source text for the author to check.
    let notes =
        "# Brakes\n\nOperators test the brakes before each shift.\n\n# Loads\n\nA load is carried low, tilted back.\n";
    let read = ada.upload_media_with(&read_as("md"), "notes.md", notes.as_bytes(), "text/html").await;
    assert_eq!(read.status, StatusCode::OK, "{}", read.text());
    let html = read.text();
    assert!(
        html.contains("characters from notes.md") && html.contains("Operators test the brakes before each shift."),
        "{html}"
    );
    // A PDF's text is extracted (here a certificate this service printed).
    let cert = courses_core::model::IssuedCertificate {
        id: "cert_x".into(),
        workspace_id: ws.clone(),
        course_id: "crs_x".into(),
        identity_id: "idn_x".into(),
        completion_id: "cmp_x".into(),
        template_id: None,
        learner_name: "Grace Hopper".into(),
        course_title: "Forklift safety".into(),
        score: None,
        issued_at: kernel::Timestamp::from_millis(0),
    };
    let pdf = courses_core::pdf::render_certificate(&cert, None, courses_core::pdf::Look::default());
    let read = ada.upload_media_with(&read_as("pdf"), "award.pdf", &pdf, "text/html").await;
    assert!(read.text().contains("Grace Hopper") && read.text().contains("from award.pdf"), "{}", read.text());
    // Anything else is refused beside the file field; a forged upload unread.
    let image = ada.upload_media_with(&read_as("png"), "x.png", b"\x89PNG\r\n\x1a\n\0\0", "text/html").await;
    assert_eq!(image.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(image.text().contains("id=\"e-file\"") && image.text().contains("UTF-8"), "{}", image.text());
    let forged =
        ada.upload_media_with("/generate/source?csrf_token=forged", "notes.md", notes.as_bytes(), "text/html").await;
    assert_eq!(forged.status, StatusCode::FORBIDDEN);

    // Generating: problems beside their fields, then a draft that says who wrote it.
    let empty = ada.submit("/generate", "/generate", &[("prompt", " "), ("screens", "4")]).await;
    assert_eq!(empty.status, StatusCode::UNPROCESSABLE_ENTITY);
    assert!(empty.text().contains("id=\"e-prompt\""), "{}", empty.text());
    let made = ada
        .submit(
            "/generate",
            "/generate",
            &[("prompt", "Forklift safety for new operators"), ("screens", "5"), ("source_text", notes)],
        )
        .await;
    assert_eq!(made.status, StatusCode::SEE_OTHER, "{}", made.text());
    let course = location(&made).to_owned();
    assert!(course.starts_with("/courses/crs_"), "{course}");
    let html = ada.get(&course).await.text();
    assert!(
        html.contains(
            "Generated by the built-in offline writer from the prompt and a source text (no model is configured)."
        ),
        "{html}"
    );
    assert!(html.contains("Operators test the brakes before each shift."), "the source's sentences are taught: {html}");
    assert!(ada.get("/settings").await.text().contains("1 of 100"), "one generation of the Build allowance");
}

async fn issued_certificates_are_listed_with_their_pdf(app: TestApp) {
    let mut ada = sign_up(&app, "ada@example.com").await;
    assert!(ada.get("/learners").await.text().contains("No certificates yet"));
    let ws = app.courses.store().workspace_summaries().await.unwrap()[0].workspace.id.clone();
    let key = app.courses.create_key(&ws, "k", false).await.unwrap().1;
    let key = key.expose();
    let course = app.course(key, &crate::support::quiz_course(Some(50))).await;
    let id = course["id"].as_str().unwrap().to_owned();
    app.post(&format!("/v1/courses/{id}/publish"), key, &serde_json::json!({})).await;
    app.post("/v1/identities", key, &serde_json::json!({ "externalId": "emp-7", "name": "Grace Hopper" })).await;
    let link = app.embed_link(key, &id, "emp-7").await;
    let session = app
        .send(
            Method::GET,
            &link.replacen(&format!("/v1/embed/{id}?"), &format!("/v1/embed/{id}/session?"), 1),
            None,
            None,
        )
        .await
        .json();
    let view = session["viewId"].as_str().unwrap().to_owned();
    let answers = serde_json::json!({ "answers": { "q1": 1, "q2": false } });
    app.send(Method::POST, &format!("/v1/embed/views/{view}/completion"), None, Some(answers.to_string().into())).await;
    let cert = app.send(Method::POST, &format!("/v1/embed/views/{view}/certificate"), None, None).await.json();
    let cert_id = cert["id"].as_str().unwrap().to_owned();

    let page = ada.get("/learners").await.text();
    assert!(page.contains("<td data-label=\"Learner\">Grace Hopper</td>"), "{page}");
    assert!(page.contains(&format!("href=\"/issued-certificates/{cert_id}.pdf\"")), "{page}");
    let pdf = ada.get(&format!("/issued-certificates/{cert_id}.pdf")).await;
    assert_eq!((pdf.status, pdf.headers["content-type"].to_str().unwrap()), (StatusCode::OK, "application/pdf"));
    assert!(crate::support::pdf_lines(&pdf.body).contains(&"Grace Hopper".to_owned()));
    // Another workspace's certificate, a wrong name and no session.
    assert_eq!(ada.get(&format!("/issued-certificates/{cert_id}")).await.status, StatusCode::NOT_FOUND);
    let mut bob = sign_up(&app, "bob@example.com").await;
    assert_eq!(bob.get(&format!("/issued-certificates/{cert_id}.pdf")).await.status, StatusCode::NOT_FOUND);
    let anonymous = Browser::new(&app).get(&format!("/issued-certificates/{cert_id}.pdf")).await;
    assert_eq!((anonymous.status, location(&anonymous)), (StatusCode::SEE_OTHER, "/signin"));
}

async fn unconfirmed_sign_ups_are_removed_after_a_week(app: TestApp) {
    let _ada = sign_up(&app, "ada@example.com").await;
    for email in ["bob@example.com", "carol@example.com"] {
        Browser::new(&app)
            .submit("/signup", "/signup", &[("workspace_name", email), ("email", email), ("password", PASSWORD)])
            .await;
    }
    let names = || async {
        let mut names: Vec<String> =
            app.courses.store().workspace_summaries().await.unwrap().into_iter().map(|w| w.workspace.name).collect();
        names.sort();
        names
    };
    // Carol's workspace got a key from the operator: it is in use.
    let carol = app.courses.store().workspace_summaries().await.unwrap();
    let carol = carol.iter().find(|w| w.workspace.name == "carol@example.com").unwrap().workspace.id.clone();
    app.courses.create_key(&carol, "ops", false).await.unwrap();
    app.clock.advance_millis(7 * 24 * 3_600_000 - 1);
    assert_eq!(app.courses.prune_unconfirmed_signups().await.unwrap(), 0, "not yet a week");
    app.clock.advance_millis(2);
    assert_eq!(app.courses.prune_unconfirmed_signups().await.unwrap(), 1);
    assert_eq!(names().await, ["Acme Academy", "carol@example.com"], "Bob's went; Ada's is confirmed, Carol's in use");
    let store = app.courses.store();
    assert!(store.person_by_email("bob@example.com").await.unwrap().is_none(), "Bob went with it");
    assert!(store.person_by_email("carol@example.com").await.unwrap().is_some(), "Carol stays with her workspace");
    // Bob's address is free again: signing up makes a new workspace and link.
    let again = Browser::new(&app)
        .submit(
            "/signup",
            "/signup",
            &[("workspace_name", "Bob again"), ("email", "bob@example.com"), ("password", PASSWORD)],
        )
        .await;
    assert_eq!(again.status, StatusCode::OK);
    assert!(app.mails().last().unwrap().contains("/verify?token="));
    assert_eq!(names().await, ["Acme Academy", "Bob again", "carol@example.com"]);
}
