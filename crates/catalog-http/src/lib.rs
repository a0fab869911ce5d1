//! The catalog's HTTP surface: the Spotify-compatible Web API under `/v1`,
//! the OAuth login page at `/authorize` and the token endpoint at
//! `/api/token`, the device protocol under `/connect`, audio streams under
//! `/stream` and the listener app (a player device itself) at `/`, all on one origin so a Spotify client needs only its base
//! URLs changed.
//!
//! Handlers are thin: they extract, call one `catalog_core::Catalog` use
//! case and build Spotify's objects ([`wire`]). Status codes and error
//! bodies live only in [`error`]; SQL and rules live only in `catalog-core`.
//! A trailing slash is ignored (`/v1/tracks/?ids=` is `/v1/tracks?ids=`),
//! as clients build some paths that way.

pub mod error;
pub mod extract;
mod landing;
pub mod routes;
pub mod wire;

use axum::Router;
use axum::extract::Request;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::routing::{delete, get, post, put};
use catalog_core::Catalog;
use platform::net::TrustedProxies;
use platform::secrets::SecretKey;
use platform::web::{CookiePolicy, Csrf};

use crate::error::ApiError;
use crate::routes::{
    admin, catalog as c, developer as dev, device as d, me, oauth, player as pl, playlists as p, spoken as sp,
};
use crate::wire::Wire;

/// Shared state of every handler.
#[derive(Clone, Debug)]
pub struct AppState {
    pub catalog: Catalog,
    /// The externally visible origin, without a trailing slash; every
    /// `href`, `next` and image URL is built on it.
    pub public_url: String,
    /// CSRF tokens of the `/authorize` form; its cookies follow `public_url`.
    pub csrf: Csrf,
    /// Who may name the client in `X-Forwarded-For` (sign-in throttle, logs).
    pub proxies: TrustedProxies,
}

impl AppState {
    /// State with a fresh random CSRF key (one process, tests) and no
    /// trusted proxies; [`Self::with_secret_key`] and
    /// [`Self::with_trusted_proxies`] set the configured ones.
    pub fn new(catalog: Catalog, public_url: &str) -> Self {
        let public_url = public_url.trim_end_matches('/').to_owned();
        let csrf = Csrf::new(&SecretKey::generate(), CookiePolicy::for_public_url(&public_url));
        Self { catalog, public_url, csrf, proxies: TrustedProxies::default() }
    }

    /// CSRF tokens signed under a key derived from `key`, so every node
    /// sharing it accepts every node's forms.
    #[must_use]
    pub fn with_secret_key(mut self, key: &SecretKey) -> Self {
        self.csrf = Csrf::new(key, CookiePolicy::for_public_url(&self.public_url));
        self
    }

    #[must_use]
    pub fn with_trusted_proxies(mut self, proxies: TrustedProxies) -> Self {
        self.proxies = proxies;
        self
    }

    /// Wire objects for a request that named no market.
    pub fn wire(&self) -> Wire<'_> {
        Wire { base: &self.public_url, markets: self.catalog.markets(), market: None, catalog: &self.catalog }
    }

    /// Wire objects for the caller's request: `is_playable` follows its market.
    pub fn wire_at<'a>(&'a self, access: &'a catalog_core::Access) -> Wire<'a> {
        Wire { market: access.market.as_deref(), ..self.wire() }
    }
}

/// The complete catalog router.
pub fn router(state: AppState) -> Router {
    let db = state.catalog.db().clone();
    let api = Router::new()
        .route("/", get(landing::page))
        .route("/authorize", get(oauth::authorize_page).post(oauth::authorize_submit))
        .route("/api/token", post(oauth::token))
        .route("/api/apps", get(dev::list).post(dev::create))
        .route("/api/admin/scan", get(admin::scan_status).post(admin::start_scan))
        .route("/api/admin/users", get(admin::users).post(admin::create_user))
        .route("/api/admin/users/{id}", put(admin::update_user).delete(admin::delete_user))
        .route("/api/apps/{client_id}", put(dev::update).delete(dev::delete))
        .route("/api/apps/{client_id}/secret", post(dev::rotate))
        .route("/images/{id}", get(c::image))
        // Catalog
        .route("/v1/tracks", get(c::tracks))
        .route("/v1/tracks/{id}", get(c::track))
        .route("/v1/albums", get(c::albums))
        .route("/v1/albums/{id}", get(c::album))
        .route("/v1/albums/{id}/tracks", get(c::album_tracks))
        .route("/v1/artists", get(c::artists))
        .route("/v1/artists/{id}", get(c::artist))
        .route("/v1/artists/{id}/albums", get(c::artist_albums))
        .route("/v1/artists/{id}/top-tracks", get(c::artist_top_tracks))
        .route("/v1/artists/{id}/related-artists", get(c::related_artists))
        .route("/v1/search", get(c::search))
        .route("/v1/browse/new-releases", get(c::new_releases))
        .route("/v1/browse/featured-playlists", get(c::featured_playlists))
        .route("/v1/browse/categories", get(c::categories))
        .route("/v1/browse/categories/{id}", get(c::category_one))
        .route("/v1/browse/categories/{id}/playlists", get(c::category_playlists))
        .route("/v1/recommendations", get(c::recommendations))
        .route("/v1/recommendations/available-genre-seeds", get(c::genre_seeds))
        .route("/v1/markets", get(c::markets))
        .route("/v1/audio-features", get(c::audio_features))
        .route("/v1/audio-features/{id}", get(c::audio_features_one))
        .route("/v1/audio-analysis/{id}", get(c::audio_analysis))
        .route("/v1/shows", get(sp::shows))
        .route("/v1/shows/{id}", get(sp::show))
        .route("/v1/shows/{id}/episodes", get(sp::show_items))
        .route("/v1/episodes", get(sp::episodes))
        .route("/v1/episodes/{id}", get(sp::episode))
        .route("/v1/audiobooks", get(sp::shows))
        // tekore 6.0 asks for several audiobooks at the singular path.
        .route("/v1/audiobook", get(sp::shows))
        .route("/v1/audiobooks/{id}", get(sp::show))
        .route("/v1/audiobooks/{id}/chapters", get(sp::show_items))
        .route("/v1/chapters", get(sp::episodes))
        .route("/v1/chapters/{id}", get(sp::episode))
        // The current user
        .route("/v1/me", get(me::me))
        .route("/v1/users/{id}", get(me::user))
        .route("/v1/me/tracks", get(me::saved_tracks).put(me::save).delete(me::unsave))
        .route("/v1/me/albums", get(me::saved_albums).put(me::save).delete(me::unsave))
        .route("/v1/me/shows", get(sp::saved).put(me::save).delete(me::unsave))
        .route("/v1/me/episodes", get(sp::saved).put(me::save).delete(me::unsave))
        .route("/v1/me/audiobooks", get(sp::saved).put(me::save).delete(me::unsave))
        .route("/v1/me/tracks/contains", get(me::contains))
        .route("/v1/me/albums/contains", get(me::contains))
        .route("/v1/me/shows/contains", get(me::contains))
        .route("/v1/me/episodes/contains", get(me::contains))
        .route("/v1/me/audiobooks/contains", get(me::contains))
        .route("/v1/me/library", put(me::library_change).delete(me::library_change))
        .route("/v1/me/library/contains", get(me::library_contains))
        .route("/v1/me/following", get(me::following).put(me::follow).delete(me::follow))
        .route("/v1/me/following/contains", get(me::following_contains))
        .route("/v1/me/top/{kind}", get(me::top))
        .route("/v1/me/player/recently-played", get(me::recently_played))
        .route("/v1/me/player", get(pl::state).put(pl::transfer))
        .route("/v1/me/player/currently-playing", get(pl::currently_playing))
        .route("/v1/me/player/devices", get(pl::devices))
        .route("/v1/me/player/queue", get(pl::queue).post(pl::add_to_queue))
        .route("/v1/me/player/play", put(pl::play))
        .route("/v1/me/player/pause", put(pl::pause))
        .route("/v1/me/player/next", post(pl::next))
        .route("/v1/me/player/previous", post(pl::previous))
        .route("/v1/me/player/seek", put(pl::seek))
        .route("/v1/me/player/repeat", put(pl::repeat))
        .route("/v1/me/player/volume", put(pl::volume))
        .route("/v1/me/player/shuffle", put(pl::shuffle))
        // Devices: the device protocol, the audio stream and the web player
        .route("/connect/devices", post(d::register))
        .route("/connect/devices/{id}", delete(d::unregister))
        .route("/connect/devices/{id}/state", get(d::state).put(d::report))
        .route("/stream/{id}", get(d::stream))
        .route("/preview/{id}", get(d::preview))
        .route("/player", get(landing::player))
        .route("/_app/{file}", get(landing::asset))
        // Playlists
        .route("/v1/me/playlists", get(p::mine).post(p::create))
        .route("/v1/users/{id}/playlists", get(p::of_user).post(p::create_for_user))
        .route("/v1/playlists/{id}", get(p::get).put(p::change))
        .route("/v1/playlists/{id}/items", get(p::items).post(p::add).put(p::update).delete(p::remove))
        .route("/v1/playlists/{id}/tracks", get(p::items).post(p::add).put(p::update).delete(p::remove))
        .route("/v1/playlists/{id}/followers", put(p::follow).delete(p::follow))
        .route("/v1/playlists/{id}/followers/contains", get(p::follow_contains))
        .route("/v1/playlists/{id}/images", get(p::images).put(p::upload_image))
        .route(
            "/v1/playlists/{id}/collaborators",
            get(p::collaborators).put(p::change_collaborators).delete(p::change_collaborators),
        )
        // Handlers read bodies through `extract::LimitedBody`; this bounds
        // any axum extractor that might be added later.
        .layer(axum::extract::DefaultBodyLimit::max(extract::DEFAULT_BODY_LIMIT))
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    let inner = api.merge(platform::http::ops_routes(db)).fallback(not_found);
    // Trailing slashes are stripped before routing.
    let outer = Router::new().fallback_service(inner).layer(axum::middleware::map_request(strip_trailing_slash));
    // Served by `platform::http::serve` with [`panic_response`].
    platform::http::instrument(outer, "catalog")
}

/// The answer to a request whose handler panicked: Spotify's 500 object.
pub fn panic_response() -> Response {
    axum::response::IntoResponse::into_response(ApiError::new(
        StatusCode::INTERNAL_SERVER_ERROR,
        "Server error; the request id identifies it in the logs",
    ))
}

async fn strip_trailing_slash(mut request: Request) -> Request {
    let path = request.uri().path();
    if path.len() > 1 && path.ends_with('/') {
        let trimmed = path.trim_end_matches('/');
        let new = match request.uri().query() {
            Some(q) => format!("{trimmed}?{q}"),
            None => trimmed.to_owned(),
        };
        if let Ok(uri) = new.parse::<Uri>() {
            *request.uri_mut() = uri;
        }
    }
    request
}

async fn not_found() -> ApiError {
    ApiError::new(StatusCode::NOT_FOUND, "Service not found")
}

async fn method_not_allowed() -> ApiError {
    ApiError::new(StatusCode::METHOD_NOT_ALLOWED, "Method not allowed")
}
