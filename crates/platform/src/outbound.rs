//! Outbound HTTP to addresses that users choose (webhook URLs and the like),
//! with a guard against server-side request forgery.
//!
//! A guarded [`Outbound`] resolves the host itself, refuses the request when
//! any resolved address is loopback, private, link-local, unique-local,
//! carrier-grade NAT, multicast, unspecified or otherwise not globally
//! routable, and then connects to exactly the addresses it checked (the
//! resolution is pinned, so a second DNS answer cannot swap in an internal
//! address). Redirects are not followed and proxies from the environment are
//! ignored, for the same reason. An operator can allow hosts or networks
//! with `SVC_OUTBOUND_ALLOW` (comma- or space-separated host names, IP
//! addresses and CIDR blocks, e.g. `127.0.0.1,10.1.0.0/16,hooks.internal`).
//!
//! [`Outbound::trusted`] skips the guard, for endpoints the operator
//! configured (a model endpoint on localhost, say), never for user input.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

/// The environment variable that lists allowed hosts and networks.
pub const ALLOW_ENV: &str = "SVC_OUTBOUND_ALLOW";
/// Extra entries for webhook deliveries only.
pub const ALLOW_WEBHOOKS_ENV: &str = "SVC_OUTBOUND_ALLOW_WEBHOOKS";
/// Extra entries for the docs' Try-It relay (and live calls) only.
pub const ALLOW_TRYIT_ENV: &str = "SVC_OUTBOUND_ALLOW_TRYIT";

/// What an outbound client is for: each purpose adds its own allow list to
/// the shared `SVC_OUTBOUND_ALLOW`, so opening the relay to an internal API
/// does not open webhooks to it, or the other way round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    Webhooks,
    TryIt,
}

/// How much of a response body is kept.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

#[derive(Debug, thiserror::Error, Clone, PartialEq, Eq)]
pub enum OutboundError {
    #[error("invalid URL: {0}")]
    InvalidUrl(String),
    // The resolved address and its kind are kept for logs but never put in
    // the message: a refusal shown to a tenant must not map the operator's
    // network (which names resolve, and to what kind of address).
    #[error("refused: {host} is not an allowed destination (an operator can allow it with {ALLOW_ENV})")]
    Refused { host: String, ip: IpAddr, kind: &'static str },
    #[error("could not resolve {host}: {reason}")]
    Resolve { host: String, reason: String },
    #[error("request failed: {0}")]
    Request(String),
    /// No answer within the client's timeout.
    #[error("timed out: {0}")]
    Timeout(String),
    /// The connection could not be made (refused, reset, unreachable).
    #[error("could not connect: {0}")]
    Connect(String),
    /// The TLS handshake failed (certificate, protocol).
    #[error("TLS failed: {0}")]
    Tls(String),
    #[error("invalid {ALLOW_ENV} entry {0:?}: expected a host name, an IP address or a CIDR block")]
    InvalidAllowEntry(String),
}

impl OutboundError {
    /// True when retrying later cannot help (the guard or the URL refused it).
    pub const fn is_permanent(&self) -> bool {
        matches!(self, Self::InvalidUrl(_) | Self::Refused { .. } | Self::InvalidAllowEntry(_))
    }

    /// A short class for logs and uptime checks: `dns`, `connect`, `tls`,
    /// `timeout`, `refused` (the guard), `invalid_url` or `request`.
    pub const fn class(&self) -> &'static str {
        match self {
            Self::InvalidUrl(_) | Self::InvalidAllowEntry(_) => "invalid_url",
            Self::Refused { .. } => "refused",
            Self::Resolve { .. } => "dns",
            Self::Timeout(_) => "timeout",
            Self::Connect(_) => "connect",
            Self::Tls(_) => "tls",
            Self::Request(_) => "request",
        }
    }

    /// Sorts a client error into timeout, TLS, connect or other request
    /// failures, keeping its whole chain of causes as the message.
    fn from_reqwest(error: &reqwest::Error) -> Self {
        let text = error_chain(error);
        if error.is_timeout() {
            Self::Timeout(text)
        } else if is_tls_failure(error) {
            Self::Tls(text)
        } else if error.is_connect() {
            Self::Connect(text)
        } else {
            Self::Request(text)
        }
    }
}

/// Whether a TLS error is among the causes. `io::Error` hides the error it
/// wraps from `source()`, so each one met on the way is opened as well.
fn is_tls_failure(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(err) = current {
        if err.is::<rustls::Error>() {
            return true;
        }
        if let Some(inner) = err.downcast_ref::<std::io::Error>().and_then(std::io::Error::get_ref)
            && is_tls_failure(inner)
        {
            return true;
        }
        current = err.source();
    }
    false
}

/// One allowed network.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    pub fn parse(text: &str) -> Option<Self> {
        let (addr, prefix) = match text.split_once('/') {
            Some((a, p)) => (a.parse::<IpAddr>().ok()?, p.parse::<u8>().ok()?),
            None => {
                let addr = text.parse::<IpAddr>().ok()?;
                (addr, if addr.is_ipv4() { 32 } else { 128 })
            }
        };
        let max = if addr.is_ipv4() { 32 } else { 128 };
        (prefix <= max).then_some(Self { addr, prefix })
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.addr, canonical(ip)) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => prefix_eq(&net.octets(), &ip.octets(), self.prefix),
            (IpAddr::V6(net), IpAddr::V6(ip)) => prefix_eq(&net.octets(), &ip.octets(), self.prefix),
            _ => false,
        }
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let full = usize::from(prefix / 8);
    let rest = prefix % 8;
    if a.get(..full) != b.get(..full) {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xff_u8 << (8 - rest);
    matches!((a.get(full), b.get(full)), (Some(x), Some(y)) if x & mask == y & mask)
}

/// IPv4-mapped IPv6 addresses are judged as the IPv4 address they carry.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        IpAddr::V4(_) => ip,
    }
}

/// Why an address is not a public one, or `None` for a public address.
pub fn non_public_kind(ip: IpAddr) -> Option<&'static str> {
    match canonical(ip) {
        IpAddr::V4(v4) => v4_kind(v4),
        IpAddr::V6(v6) => v6_kind(v6),
    }
}

fn v4_kind(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_private() {
        Some("private")
    } else if ip.is_link_local() {
        Some("link-local")
    } else if ip.is_unspecified() || a == 0 {
        Some("unspecified")
    } else if a == 100 && (64..128).contains(&b) {
        Some("shared (carrier-grade NAT)")
    } else if ip.is_multicast() || ip.is_broadcast() || a >= 240 {
        Some("multicast or reserved")
    } else if (a == 192 && b == 0 && c == 0) || (a == 198 && (b == 18 || b == 19)) {
        Some("special-purpose")
    } else if ip.is_documentation() {
        Some("documentation")
    } else {
        None
    }
}

fn v6_kind(ip: Ipv6Addr) -> Option<&'static str> {
    let first = ip.segments().first().copied().unwrap_or(0);
    if ip.is_loopback() {
        Some("loopback")
    } else if ip.is_unspecified() {
        Some("unspecified")
    } else if first & 0xfe00 == 0xfc00 {
        Some("unique-local")
    } else if first & 0xffc0 == 0xfe80 {
        Some("link-local")
    } else if ip.is_multicast() {
        Some("multicast or reserved")
    } else if first == 0x2001 && ip.segments().get(1) == Some(&0x0db8) {
        Some("documentation")
    } else if first == 0x2001 && ip.segments().get(1) == Some(&0) {
        // Teredo tunnels reach whatever the embedded server relays to.
        Some("Teredo tunnel")
    } else if first & 0xffc0 == 0xfec0 {
        Some("site-local")
    } else if ip.segments().get(..4) == Some(&[0x100, 0, 0, 0]) {
        Some("discard-only")
    } else if ip.segments().get(..6) == Some(&[0, 0, 0, 0, 0, 0]) {
        // IPv4-compatible (::/96, deprecated): judged as never public.
        Some("IPv4-compatible")
    } else if first == 0x2002 {
        // 6to4: the IPv4 address of the relay is in bits 16..48.
        let [_, hi, lo, ..] = ip.segments();
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        v4_kind(Ipv4Addr::new(a, b, c, d)).map(|_| "6to4 of a non-public")
    } else if ip.segments().get(..6) == Some(&[0, 0, 0, 0, 0xffff, 0]) {
        // IPv4-translated (::ffff:0:0/96, SIIT): a translator on the path
        // turns it into whatever IPv4 address it carries.
        Some("IPv4-translated")
    } else if ip.segments().get(..3) == Some(&[0x64, 0xff9b, 1]) {
        // Local-use NAT64 (64:ff9b:1::/48, RFC 8215): the operator's own
        // translator, with no rule about which IPv4 addresses it reaches.
        Some("local-use NAT64")
    } else if ip.segments().get(..6) == Some(&[0x64, 0xff9b, 0, 0, 0, 0]) {
        // NAT64: judge the embedded IPv4 address.
        let [.., hi, lo] = ip.segments();
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        v4_kind(Ipv4Addr::new(a, b, c, d))
    } else {
        None
    }
}

/// The operator's exceptions to the guard.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AllowList {
    hosts: Vec<String>,
    networks: Vec<Cidr>,
}

impl AllowList {
    /// Parses `host,10.0.0.0/8 127.0.0.1 ...`.
    pub fn parse(text: &str) -> Result<Self, OutboundError> {
        let mut list = Self::default();
        for entry in text.split([',', ' ', '\n', '\t']).map(str::trim).filter(|e| !e.is_empty()) {
            if let Some(net) = Cidr::parse(entry.trim_start_matches('[').trim_end_matches(']')) {
                list.networks.push(net);
            } else if entry.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '.') {
                list.hosts.push(entry.to_ascii_lowercase());
            } else {
                return Err(OutboundError::InvalidAllowEntry(entry.to_owned()));
            }
        }
        Ok(list)
    }

    fn allows_host(&self, host: &str) -> bool {
        self.hosts.iter().any(|h| h.eq_ignore_ascii_case(host))
    }

    fn allows_ip(&self, ip: IpAddr) -> bool {
        self.networks.iter().any(|n| n.contains(ip))
    }
}

/// A response, with at most the client's `max_response` bytes of its body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutboundResponse {
    pub status: u16,
    /// Response headers in the order received (names lowercased).
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Whether the body was cut at the client's `max_response` bytes.
    pub truncated: bool,
}

/// An HTTP client for outbound requests, guarded or trusted.
#[derive(Clone, Debug)]
pub struct Outbound {
    guard: Option<AllowList>,
    timeout: Duration,
    max_response: usize,
}

impl Default for Outbound {
    fn default() -> Self {
        Self::guarded(AllowList::default())
    }
}

impl Outbound {
    /// Refuses non-public addresses except those in `allow`.
    pub const fn guarded(allow: AllowList) -> Self {
        Self { guard: Some(allow), timeout: Duration::from_secs(10), max_response: MAX_RESPONSE_BYTES }
    }

    /// The guard with `SVC_OUTBOUND_ALLOW` from the environment.
    pub fn guarded_from_env() -> Result<Self, OutboundError> {
        let allow =
            std::env::var(ALLOW_ENV).map(|v| AllowList::parse(&v)).unwrap_or_else(|_| Ok(AllowList::default()))?;
        Ok(Self::guarded(allow))
    }

    /// The guard for one purpose: `SVC_OUTBOUND_ALLOW` plus that purpose's
    /// own list (`SVC_OUTBOUND_ALLOW_WEBHOOKS` or `SVC_OUTBOUND_ALLOW_TRYIT`).
    pub fn guarded_for(purpose: Purpose) -> Result<Self, OutboundError> {
        let read =
            |name: &str| std::env::var(name).map(|v| AllowList::parse(&v)).unwrap_or_else(|_| Ok(AllowList::default()));
        let mut allow = read(ALLOW_ENV)?;
        let own = read(match purpose {
            Purpose::Webhooks => ALLOW_WEBHOOKS_ENV,
            Purpose::TryIt => ALLOW_TRYIT_ENV,
        })?;
        allow.hosts.extend(own.hosts);
        allow.networks.extend(own.networks);
        Ok(Self::guarded(allow))
    }

    /// No guard: only for endpoints the operator configured.
    pub const fn trusted() -> Self {
        Self { guard: None, timeout: Duration::from_secs(10), max_response: MAX_RESPONSE_BYTES }
    }

    /// Keeps up to `bytes` of a response body (default [`MAX_RESPONSE_BYTES`]).
    #[must_use]
    pub const fn with_max_response(mut self, bytes: usize) -> Self {
        self.max_response = bytes;
        self
    }

    #[must_use]
    pub const fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The guard's verdict without resolving names: a bad URL, or an IP
    /// address the guard refuses, is an error; a host name passes (it is
    /// judged by its addresses when a request is sent). For checking a URL
    /// when it is saved.
    pub fn precheck(&self, url: &str) -> Result<(), OutboundError> {
        let parsed = parse(url)?;
        let host = host_of(&parsed)?;
        if let (Some(allow), Ok(ip)) = (&self.guard, host.parse::<IpAddr>())
            && let Some(kind) = non_public_kind(ip)
            && !allow.allows_ip(ip)
            && !allow.allows_host(&host)
        {
            return Err(OutboundError::Refused { host, ip, kind });
        }
        Ok(())
    }

    /// Resolves the URL's host and checks every address against the guard.
    /// Returns the URL and the addresses to connect to.
    pub async fn check(&self, url: &str) -> Result<(reqwest::Url, Vec<SocketAddr>), OutboundError> {
        let parsed = parse(url)?;
        let host = host_of(&parsed)?;
        let port = parsed.port_or_known_default().unwrap_or(80);
        let addrs: Vec<SocketAddr> = match host.parse::<IpAddr>() {
            Ok(ip) => vec![SocketAddr::new(ip, port)],
            Err(_) => tokio::net::lookup_host((host.as_str(), port))
                .await
                .map_err(|e| OutboundError::Resolve { host: host.clone(), reason: e.to_string() })?
                .collect(),
        };
        if addrs.is_empty() {
            return Err(OutboundError::Resolve { host, reason: "no addresses".to_owned() });
        }
        if let Some(allow) = &self.guard
            && !allow.allows_host(&host)
        {
            for addr in &addrs {
                if let Some(kind) = non_public_kind(addr.ip())
                    && !allow.allows_ip(addr.ip())
                {
                    return Err(OutboundError::Refused { host, ip: addr.ip(), kind });
                }
            }
        }
        Ok((parsed, addrs))
    }

    /// POSTs `body` with `headers`; the guard is applied first, and the
    /// connection goes only to the checked addresses.
    pub async fn post(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: Vec<u8>,
    ) -> Result<OutboundResponse, OutboundError> {
        self.send("POST", url, headers, body).await
    }

    /// Sends any request; the guard is applied first, the connection goes
    /// only to the checked addresses, redirects are returned, not followed.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, String)],
        body: Vec<u8>,
    ) -> Result<OutboundResponse, OutboundError> {
        let opened = self.open(method, url, headers, body).await?;
        Ok(opened.keep(self.max_response).await)
    }

    /// A client for the origin of `url` (scheme, host and port): its
    /// addresses are checked by the guard once and pinned, and every request
    /// through it reuses its connections. For many requests to one origin
    /// (an uptime round); a request to another origin is refused.
    pub async fn origin_client(&self, url: &str) -> Result<OriginClient, OutboundError> {
        let (parsed, addrs) = self.check(url).await?;
        let client = self.client_for(&parsed, &addrs)?;
        Ok(OriginClient { client, origin: parsed.origin(), max_response: self.max_response })
    }

    /// A client that connects only to `addrs` for the URL's host and
    /// follows no redirect and no proxy.
    fn client_for(&self, parsed: &reqwest::Url, addrs: &[SocketAddr]) -> Result<reqwest::Client, OutboundError> {
        ensure_crypto_provider();
        let mut builder = reqwest::Client::builder()
            .no_proxy()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(self.timeout)
            .connect_timeout(self.timeout);
        if let Some(domain) = parsed.host_str().filter(|h| !h.starts_with('[') && h.parse::<IpAddr>().is_err()) {
            builder = builder.resolve_to_addrs(domain, addrs);
        }
        builder.build().map_err(|e| OutboundError::Request(e.to_string()))
    }

    /// Sends a request like [`Outbound::send`] and hands back the response
    /// as soon as its headers arrive, for bodies read as they stream (a
    /// model's answer). The body stream ends with an error past the
    /// client's `max_response` bytes.
    pub async fn open(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, String)],
        body: Vec<u8>,
    ) -> Result<OpenedResponse, OutboundError> {
        let method = parse_method(method)?;
        let (parsed, addrs) = self.check(url).await?;
        let client = self.client_for(&parsed, &addrs)?;
        dispatch(&client, method, parsed, headers, body, self.max_response).await
    }
}

/// A client bound to one origin whose addresses the guard checked (see
/// [`Outbound::origin_client`]).
#[derive(Clone, Debug)]
pub struct OriginClient {
    client: reqwest::Client,
    origin: url::Origin,
    max_response: usize,
}

impl OriginClient {
    /// Sends a request to a URL of this client's origin and keeps at most
    /// the client's `max_response` bytes of the body.
    pub async fn send(
        &self,
        method: &str,
        url: &str,
        headers: &[(&str, String)],
        body: Vec<u8>,
    ) -> Result<OutboundResponse, OutboundError> {
        let method = parse_method(method)?;
        let parsed = parse(url)?;
        if parsed.origin() != self.origin {
            return Err(OutboundError::InvalidUrl(format!("{url} is not on this client's origin")));
        }
        let opened = dispatch(&self.client, method, parsed, headers, body, self.max_response).await?;
        Ok(opened.keep(self.max_response).await)
    }
}

fn parse_method(method: &str) -> Result<reqwest::Method, OutboundError> {
    reqwest::Method::from_bytes(method.as_bytes())
        .map_err(|_| OutboundError::Request(format!("invalid method {method:?}")))
}

async fn dispatch(
    client: &reqwest::Client,
    method: reqwest::Method,
    url: reqwest::Url,
    headers: &[(&str, String)],
    body: Vec<u8>,
    max_response: usize,
) -> Result<OpenedResponse, OutboundError> {
    let mut request = client.request(method.clone(), url);
    if !body.is_empty() || method != reqwest::Method::GET {
        request = request.body(body);
    }
    for (name, value) in headers {
        request = request.header(*name, value.as_str());
    }
    let response = request.send().await.map_err(|e| OutboundError::from_reqwest(&e))?;
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    Ok(OpenedResponse { status, headers, response, max_response })
}

/// A response whose headers have arrived and whose body has not been read.
#[derive(Debug)]
pub struct OpenedResponse {
    pub status: u16,
    /// Response headers in the order received (names lowercased).
    pub headers: Vec<(String, String)>,
    response: reqwest::Response,
    max_response: usize,
}

impl OpenedResponse {
    /// Reads the body, keeping at most `max` bytes; a body cut short by a
    /// failure keeps what arrived.
    async fn keep(self, max: usize) -> OutboundResponse {
        let (status, headers, mut response) = (self.status, self.headers, self.response);
        let mut kept = Vec::new();
        let mut truncated = false;
        while let Ok(Some(chunk)) = response.chunk().await {
            kept.extend_from_slice(&chunk);
            if kept.len() > max {
                truncated = true;
                break;
            }
        }
        kept.truncate(max);
        OutboundResponse { status, headers, body: kept, truncated }
    }

    /// The first value of header `name` (lowercase).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }

    /// The body as a stream of chunks; past `max_response` bytes in all it
    /// yields one error and ends, so a peer that never stops cannot grow
    /// the reader's memory.
    pub fn bytes_stream(
        self,
    ) -> impl futures_util::Stream<Item = Result<bytes::Bytes, OutboundError>> + Send + 'static {
        use futures_util::StreamExt as _;
        let max = self.max_response;
        self.response.bytes_stream().scan((0usize, false), move |(seen, over), chunk| {
            if *over {
                return futures_util::future::ready(None);
            }
            let item = match chunk {
                Ok(chunk) => {
                    *seen = seen.saturating_add(chunk.len());
                    if *seen > max {
                        *over = true;
                        Err(OutboundError::Request(format!("the response exceeded {max} bytes")))
                    } else {
                        Ok(chunk)
                    }
                }
                Err(error) => {
                    *over = true;
                    Err(OutboundError::from_reqwest(&error))
                }
            };
            futures_util::future::ready(Some(item))
        })
    }

    /// The whole body, at most `max_response` bytes (an error past it).
    pub async fn bytes(self) -> Result<Vec<u8>, OutboundError> {
        use futures_util::StreamExt as _;
        let stream = self.bytes_stream();
        futures_util::pin_mut!(stream);
        let mut kept = Vec::new();
        while let Some(chunk) = stream.next().await {
            kept.extend_from_slice(&chunk?);
        }
        Ok(kept)
    }
}

fn parse(url: &str) -> Result<reqwest::Url, OutboundError> {
    let parsed = reqwest::Url::parse(url).map_err(|e| OutboundError::InvalidUrl(e.to_string()))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(OutboundError::InvalidUrl("only http and https URLs are allowed".to_owned()));
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(OutboundError::InvalidUrl("credentials in the URL are not allowed".to_owned()));
    }
    Ok(parsed)
}

/// The host of a URL, IPv6 brackets removed.
fn host_of(url: &reqwest::Url) -> Result<String, OutboundError> {
    match url.host_str() {
        Some(h) if !h.is_empty() => Ok(h.trim_start_matches('[').trim_end_matches(']').to_owned()),
        _ => Err(OutboundError::InvalidUrl("the URL has no host".to_owned())),
    }
}

fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(inner) = source {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        source = inner.source();
    }
    text
}

/// reqwest is built without a default TLS crypto provider; install ring's
/// once per process (a no-op when the binary already did).
pub(crate) fn ensure_crypto_provider() {
    drop(rustls::crypto::ring::default_provider().install_default());
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing, reason = "tests")]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn non_public_addresses_are_named() {
        for (addr, kind) in [
            ("127.0.0.1", "loopback"),
            ("127.9.9.9", "loopback"),
            ("10.1.2.3", "private"),
            ("172.16.0.1", "private"),
            ("172.31.255.255", "private"),
            ("192.168.1.1", "private"),
            ("169.254.169.254", "link-local"),
            ("0.0.0.0", "unspecified"),
            ("100.64.0.1", "shared (carrier-grade NAT)"),
            ("224.0.0.1", "multicast or reserved"),
            ("255.255.255.255", "multicast or reserved"),
            ("::1", "loopback"),
            ("::", "unspecified"),
            ("fd00::1", "unique-local"),
            ("fe80::1", "link-local"),
            ("::ffff:127.0.0.1", "loopback"),
            ("::ffff:10.0.0.1", "private"),
            ("64:ff9b::a00:1", "private"),
            ("::7f00:1", "IPv4-compatible"),
            ("::a00:1", "IPv4-compatible"),
            ("2002:a00:1::1", "6to4 of a non-public"),
            ("2002:7f00:1::", "6to4 of a non-public"),
            ("2001::1", "Teredo tunnel"),
            ("2001:0:4136:e378::1", "Teredo tunnel"),
            ("fec0::1", "site-local"),
            ("100::1", "discard-only"),
            ("::ffff:0:7f00:1", "IPv4-translated"),
            ("::ffff:0:808:808", "IPv4-translated"),
            ("64:ff9b:1::a00:1", "local-use NAT64"),
            ("64:ff9b:1:ffff::808:808", "local-use NAT64"),
        ] {
            assert_eq!(non_public_kind(ip(addr)), Some(kind), "{addr}");
        }
        for addr in
            ["8.8.8.8", "172.32.0.1", "1.1.1.1", "2606:4700::1111", "100.128.0.1", "2002:808:808::1", "2001:4860::8888"]
        {
            assert_eq!(non_public_kind(ip(addr)), None, "{addr}");
        }
    }

    #[test]
    fn cidrs_match_by_prefix() {
        let net = Cidr::parse("10.1.0.0/16").unwrap();
        assert!(net.contains(ip("10.1.200.3")) && !net.contains(ip("10.2.0.1")));
        let net = Cidr::parse("172.16.0.0/12").unwrap();
        assert!(net.contains(ip("172.31.1.1")) && !net.contains(ip("172.32.0.1")));
        assert!(Cidr::parse("127.0.0.1").unwrap().contains(ip("::ffff:127.0.0.1")));
        assert!(Cidr::parse("fd00::/8").unwrap().contains(ip("fd12::1")));
        assert!(Cidr::parse("0.0.0.0/0").unwrap().contains(ip("192.168.0.1")));
        assert!(Cidr::parse("10.0.0.0/33").is_none() && Cidr::parse("nope/8").is_none());
    }

    #[test]
    fn allow_lists_parse_hosts_addresses_and_networks() {
        let list = AllowList::parse("127.0.0.1, 10.1.0.0/16 hooks.internal\n[::1]").unwrap();
        assert!(list.allows_ip(ip("127.0.0.1")) && list.allows_ip(ip("10.1.3.4")) && list.allows_ip(ip("::1")));
        assert!(!list.allows_ip(ip("10.2.0.1")));
        assert!(list.allows_host("HOOKS.internal") && !list.allows_host("other.internal"));
        assert!(AllowList::parse("http://x/").is_err());
        assert_eq!(AllowList::parse("").unwrap(), AllowList::default());
    }

    #[tokio::test]
    async fn the_guard_checks_resolved_addresses() {
        let strict = Outbound::default();
        for url in ["http://127.0.0.1:9/x", "http://10.0.0.1/x", "http://[::1]:9/", "http://169.254.169.254/latest"] {
            let err = strict.check(url).await.unwrap_err();
            assert!(matches!(err, OutboundError::Refused { .. }), "{url}: {err}");
            assert!(err.is_permanent());
        }
        // A host name is judged by what it resolves to.
        let err = strict.check("http://localhost:9/hook").await.unwrap_err();
        assert!(matches!(err, OutboundError::Refused { kind: "loopback", .. }), "{err}");
        for url in ["ftp://example.com/", "http://user:pw@example.com/", "not a url"] {
            assert!(matches!(strict.check(url).await, Err(OutboundError::InvalidUrl(_))), "{url}");
        }
        let allowed = Outbound::guarded(AllowList::parse("127.0.0.0/8").unwrap());
        let (_, addrs) = allowed.check("http://127.0.0.1:9/x").await.unwrap();
        assert_eq!(addrs, vec!["127.0.0.1:9".parse().unwrap()]);
        assert!(allowed.check("http://10.0.0.1/x").await.is_err());
        let by_host = Outbound::guarded(AllowList::parse("localhost").unwrap());
        assert!(by_host.check("http://localhost:9/x").await.is_ok());
        assert!(Outbound::trusted().check("http://127.0.0.1:9/x").await.is_ok());
        // Without resolving: literals are judged, names wait for the send.
        assert!(matches!(strict.precheck("http://10.1.2.3/h"), Err(OutboundError::Refused { kind: "private", .. })));
        assert!(matches!(strict.precheck("http://[::1]:8/h"), Err(OutboundError::Refused { kind: "loopback", .. })));
        assert!(strict.precheck("http://localhost:9/h").is_ok() && strict.precheck("https://8.8.8.8/h").is_ok());
        assert!(matches!(strict.precheck("gopher://x/"), Err(OutboundError::InvalidUrl(_))));
        assert!(allowed.precheck("http://127.0.0.1:9/x").is_ok());
    }

    #[tokio::test]
    async fn posts_reach_an_allowed_receiver_and_never_follow_redirects() {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let server = tokio::spawn(async move {
            let mut seen = Vec::new();
            for reply in [
                "HTTP/1.1 204 No Content\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                "HTTP/1.1 302 Found\r\nlocation: http://10.0.0.1/\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                "HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
            ] {
                let (mut socket, _) = listener.accept().await.unwrap();
                let mut buf = Vec::new();
                let mut chunk = [0_u8; 4096];
                loop {
                    let n = socket.read(&mut chunk).await.unwrap();
                    buf.extend_from_slice(&chunk[..n]);
                    let text = String::from_utf8_lossy(&buf).into_owned();
                    if let Some((head, body)) = text.split_once("\r\n\r\n") {
                        let len = head
                            .lines()
                            .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length: ").map(str::to_owned))
                            .and_then(|v| v.trim().parse::<usize>().ok())
                            .unwrap_or(0);
                        if body.len() >= len || n == 0 {
                            break;
                        }
                    }
                    if n == 0 {
                        break;
                    }
                }
                seen.push(String::from_utf8_lossy(&buf).into_owned());
                socket.write_all(reply.as_bytes()).await.unwrap();
            }
            seen
        });
        let client = Outbound::guarded(AllowList::parse("127.0.0.1").unwrap());
        let url = format!("http://127.0.0.1:{port}/hook");
        let first = client.post(&url, &[("x-test", "1".to_owned())], b"{\"a\":1}".to_vec()).await.unwrap();
        assert_eq!(first.status, 204);
        let second = client.post(&url, &[], b"{}".to_vec()).await.unwrap();
        assert_eq!(second.status, 302, "the redirect is reported, not followed");
        // A host name allowed by name: the connection goes to the address
        // resolved and checked once.
        let by_name = Outbound::guarded(AllowList::parse("localhost").unwrap());
        let third = by_name.post(&format!("http://localhost:{port}/named"), &[], Vec::new()).await.unwrap();
        assert_eq!((third.status, third.body.as_slice()), (200, b"ok".as_slice()));
        let seen = server.await.unwrap();
        assert!(seen[2].starts_with("POST /named HTTP/1.1"), "{}", seen[2]);
        assert!(seen[0].starts_with("POST /hook HTTP/1.1") && seen[0].contains("x-test: 1"), "{}", seen[0]);
        assert!(seen[0].ends_with("{\"a\":1}"), "{}", seen[0]);
        // A refused address is never contacted.
        let err = Outbound::default().post(&url, &[], Vec::new()).await.unwrap_err();
        assert!(matches!(err, OutboundError::Refused { kind: "loopback", .. }));
    }
}
