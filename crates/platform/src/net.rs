//! Who the client is: the peer address, or the address a trusted reverse
//! proxy reports in `X-Forwarded-For`.
//!
//! `X-Forwarded-For` is a list every hop appends to, so only its right end
//! can be believed, and only as far as the hops are ours. Without
//! `SVC_TRUSTED_PROXIES` the header is ignored and the peer counts: a client
//! cannot pick its own rate-limit key or audit address by sending a header.

use std::net::IpAddr;

use axum::http::HeaderMap;

use crate::outbound::Cidr;

/// The environment variable listing the proxies whose headers are believed.
pub const TRUSTED_PROXIES_ENV: &str = "SVC_TRUSTED_PROXIES";

/// The reverse proxies in front of the service (CIDR blocks or addresses).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies {
    networks: Vec<Cidr>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("invalid {TRUSTED_PROXIES_ENV} entry {0:?}: expected an IP address or a CIDR block")]
pub struct InvalidProxyEntry(pub String);

impl TrustedProxies {
    /// Parses `10.0.0.0/8, 127.0.0.1 ::1` (commas or white space).
    pub fn parse(text: &str) -> Result<Self, InvalidProxyEntry> {
        let networks = text
            .split([',', ' ', '\n', '\t'])
            .map(str::trim)
            .filter(|e| !e.is_empty())
            .map(|e| {
                Cidr::parse(e.trim_start_matches('[').trim_end_matches(']'))
                    .ok_or_else(|| InvalidProxyEntry(e.to_owned()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Self { networks })
    }

    /// From `SVC_TRUSTED_PROXIES`; unset or empty trusts nobody.
    pub fn from_env() -> Result<Self, InvalidProxyEntry> {
        std::env::var(TRUSTED_PROXIES_ENV).map_or_else(|_| Ok(Self::default()), |v| Self::parse(&v))
    }

    fn trusts(&self, ip: IpAddr) -> bool {
        self.networks.iter().any(|n| n.contains(ip))
    }

    /// The client's address: walking `X-Forwarded-For` from the right, the
    /// first address that is not one of our proxies, as long as every hop
    /// after it is one. The peer itself when it is not a trusted proxy.
    #[must_use]
    pub fn client_ip(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        let hops = headers
            .get_all("x-forwarded-for")
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect::<Vec<_>>();
        let mut client = peer;
        for hop in hops.iter().rev() {
            let Ok(ip) = hop.trim_start_matches('[').trim_end_matches(']').parse::<IpAddr>() else { break };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// The key a per-client limit counts under: an IPv4 address as it is (an
/// IPv4-mapped IPv6 address as its IPv4 address), an IPv6 address by its
/// /64. One subscriber of an IPv6 network usually holds a whole /64 (RFC
/// 6177), so keying by the full address would give each client 2^64 keys.
#[must_use]
pub fn rate_key(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => {
                let network = u128::from(v6) & !((1_u128 << 64) - 1);
                IpAddr::V6(std::net::Ipv6Addr::from(network))
            }
        },
    }
}

/// The client address of a request, as the trusted proxies let it be known:
/// the service stores one [`TrustedProxies`] in its state and asks here.
#[must_use]
pub fn client_ip(proxies: &TrustedProxies, request_peer: Option<IpAddr>, headers: &HeaderMap) -> Option<IpAddr> {
    request_peer.map(|peer| proxies.client_ip(peer, headers))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_key_ipv6_clients_by_their_64() {
        let key = |text: &str| rate_key(text.parse().unwrap()).to_string();
        assert_eq!(key("2001:db8:1:2:aaaa:bbbb:cccc:dddd"), "2001:db8:1:2::");
        assert_eq!(key("2001:db8:1:2::1"), key("2001:db8:1:2:ffff::9"), "one /64, one key");
        assert_ne!(key("2001:db8:1:2::1"), key("2001:db8:1:3::1"), "the next /64 is another client");
        assert_eq!(key("203.0.113.9"), "203.0.113.9");
        assert_eq!(key("::ffff:203.0.113.9"), "203.0.113.9", "a mapped IPv4 address is that address");
    }

    fn headers(xff: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("x-forwarded-for", xff.parse().unwrap());
        h
    }

    #[test]
    fn without_trusted_proxies_the_header_is_ignored() {
        let proxies = TrustedProxies::default();
        let peer: IpAddr = "203.0.113.9".parse().unwrap();
        assert_eq!(proxies.client_ip(peer, &headers("1.2.3.4")), peer);
    }

    #[test]
    fn the_rightmost_untrusted_hop_is_the_client() {
        let proxies = TrustedProxies::parse("10.0.0.0/8, 127.0.0.1").unwrap();
        let peer: IpAddr = "127.0.0.1".parse().unwrap();
        // The client forged the first entry; the proxies appended the rest.
        let got = proxies.client_ip(peer, &headers("6.6.6.6, 198.51.100.7, 10.1.2.3"));
        assert_eq!(got, "198.51.100.7".parse::<IpAddr>().unwrap());
        // An untrusted peer's header is not read at all.
        let stranger: IpAddr = "192.0.2.1".parse().unwrap();
        assert_eq!(proxies.client_ip(stranger, &headers("1.1.1.1")), stranger);
        // Garbage stops the walk at the last address believed.
        assert_eq!(proxies.client_ip(peer, &headers("nonsense, 10.9.9.9")), "10.9.9.9".parse::<IpAddr>().unwrap());
    }

    #[test]
    fn bad_entries_are_named() {
        assert_eq!(TrustedProxies::parse("10.0.0.0/8, proxy.local"), Err(InvalidProxyEntry("proxy.local".into())));
    }
}
