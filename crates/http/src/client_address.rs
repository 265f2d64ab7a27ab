//! The address a request comes from, for rate limits and logs.
//!
//! It is the connection's peer address, unless the peer is one of the proxies named in
//! `http.trusted_proxies` (the gateway): then it is read from `X-Forwarded-For`. Anyone can
//! write that header, so it is believed only as far as it was written by trusted proxies:
//! each appends the address it saw, so the right-most entry that is not itself a trusted
//! proxy is the first hop no trusted proxy vouches for beyond. Entries to its left are
//! whatever the client chose to send.
//!
//! actix's `ConnectionInfo::realip_remote_addr` is not used: it believes the header from
//! any peer.

use std::future::{Ready, ready};
use std::net::{IpAddr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use actix_web::dev::Payload;
use actix_web::http::header::HeaderName;
use actix_web::{FromRequest, HttpRequest};
use coffer_error::ApiError;
use ipnet::IpNet;

const X_FORWARDED_FOR: HeaderName = HeaderName::from_static("x-forwarded-for");

/// The proxies whose `X-Forwarded-For` is believed: addresses and CIDR ranges. Registered
/// as app data by `build_app`; none when a service runs without a gateway in front.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Arc<[IpNet]>);

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("{0:?} is neither an IP address nor a CIDR range such as 10.0.0.0/8")]
pub struct InvalidProxy(pub String);

impl TrustedProxies {
    pub fn none() -> Self {
        Self::default()
    }

    /// Each entry an address (`10.0.0.7`, `::1`) or a range (`10.0.0.0/8`, `fd00::/8`).
    pub fn parse<'a>(entries: impl IntoIterator<Item = &'a str>) -> Result<Self, InvalidProxy> {
        let nets = entries
            .into_iter()
            .map(|entry| {
                let entry = entry.trim();
                entry
                    .parse::<IpNet>()
                    .or_else(|_| entry.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| InvalidProxy(entry.to_owned()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self(nets.into()))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }
}

/// An `X-Forwarded-For` entry: proxies write a bare address, a few add a port.
fn forwarded_entry(entry: &str) -> Option<IpAddr> {
    let entry = entry.trim();
    entry
        .parse::<IpAddr>()
        .or_else(|_| entry.parse::<SocketAddr>().map(|s| s.ip()))
        .ok()
        .map(|ip| ip.to_canonical())
}

/// The client's address, given the connection's `peer`, the `X-Forwarded-For` header lines
/// in the order received (several lines read as one comma-separated list) and the proxies
/// trusted to have written them.
pub fn client_address<'a>(
    peer: IpAddr,
    forwarded_for: impl IntoIterator<Item = &'a str>,
    trusted: &TrustedProxies,
) -> IpAddr {
    let peer = peer.to_canonical();
    if !trusted.contains(peer) {
        return peer;
    }
    let lines: Vec<&str> = forwarded_for.into_iter().collect();
    let mut client = peer;
    for entry in lines.iter().rev().flat_map(|line| line.rsplit(',')) {
        // An entry that is no address was not written by a trusted proxy (they write the
        // peer they saw): the nearest hop that gave it is as far as the chain is known.
        let Some(ip) = forwarded_entry(entry) else {
            break;
        };
        client = ip;
        if !trusted.contains(ip) {
            break;
        }
    }
    client
}

/// The address a request comes from (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientAddress(pub IpAddr);

impl ClientAddress {
    pub fn ip(&self) -> IpAddr {
        self.0
    }

    /// What a limit per address counts: an IPv4 address, or the /64 an IPv6 address lies
    /// in. One host or one subscriber is routinely given a whole /64, and could otherwise
    /// step to a fresh address for every request.
    pub fn network(&self) -> IpAddr {
        match self.0 {
            IpAddr::V4(v4) => IpAddr::V4(v4),
            IpAddr::V6(v6) => {
                let prefix = u128::from(v6) & !(u128::MAX >> 64);
                IpAddr::V6(Ipv6Addr::from(prefix))
            }
        }
    }
}

impl FromRequest for ClientAddress {
    type Error = ApiError;
    type Future = Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let Some(peer) = req.peer_addr() else {
            // Only a request built without a connection (a unit test) has no peer.
            return ready(Err(ApiError::internal("the request has no peer address")));
        };
        let none = TrustedProxies::none();
        let trusted = req.app_data::<TrustedProxies>().unwrap_or(&none);
        let lines = req
            .headers()
            .get_all(X_FORWARDED_FOR)
            .filter_map(|v| v.to_str().ok());
        ready(Ok(ClientAddress(client_address(peer.ip(), lines, trusted))))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn gateway() -> TrustedProxies {
        TrustedProxies::parse(["10.0.0.0/8", "127.0.0.1"]).unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_forwards() {
        let got = client_address(ip("203.0.113.9"), ["198.51.100.1"], &gateway());
        assert_eq!(got, ip("203.0.113.9"));
        let got = client_address(ip("127.0.0.1"), ["198.51.100.1"], &TrustedProxies::none());
        assert_eq!(got, ip("127.0.0.1"));
    }

    /// The client of a request from `peer` that carries one `X-Forwarded-For` line.
    fn behind_gateway(peer: &str, forwarded_for: &str) -> IpAddr {
        client_address(ip(peer), [forwarded_for], &gateway())
    }

    #[test]
    fn a_trusted_peer_gives_the_right_most_untrusted_entry() {
        // The client spoofed 1.1.1.1; the gateway appended what it saw, then an inner proxy.
        let got = behind_gateway("10.0.0.2", "1.1.1.1, 203.0.113.9, 10.0.0.1");
        assert_eq!(got, ip("203.0.113.9"));
    }

    #[test]
    fn several_header_lines_read_as_one_list() {
        let lines = ["1.1.1.1", "203.0.113.9", "10.0.0.1"];
        let got = client_address(ip("127.0.0.1"), lines, &gateway());
        assert_eq!(got, ip("203.0.113.9"));
    }

    #[test]
    fn without_the_header_a_trusted_peer_is_the_client() {
        let got = client_address(ip("10.0.0.2"), [], &gateway());
        assert_eq!(got, ip("10.0.0.2"));
    }

    #[test]
    fn only_trusted_entries_give_the_left_most() {
        let got = behind_gateway("127.0.0.1", "10.9.9.9, 10.0.0.1");
        assert_eq!(got, ip("10.9.9.9"));
    }

    #[test]
    fn garbage_stops_the_walk_at_the_last_address_known() {
        for line in ["nonsense, 10.0.0.1", "203.0.113.9, , 10.0.0.1"] {
            assert_eq!(behind_gateway("127.0.0.1", line), ip("10.0.0.1"), "{line}");
        }
    }

    #[test]
    fn ports_ipv6_and_mapped_addresses() {
        for (peer, line, client) in [
            ("::ffff:127.0.0.1", "203.0.113.9:4711", "203.0.113.9"),
            ("127.0.0.1", "[2001:db8::1]:443", "2001:db8::1"),
            ("127.0.0.1", " 2001:db8::2 ", "2001:db8::2"),
        ] {
            assert_eq!(behind_gateway(peer, line), ip(client), "{line}");
        }
    }

    #[test]
    fn proxies_parse_addresses_and_ranges_and_name_a_bad_entry() {
        let p = TrustedProxies::parse(["::1", "fd00::/8", " 192.168.0.0/16 "]).unwrap();
        assert!(p.contains(ip("::1")) && p.contains(ip("fd12::3")));
        assert!(p.contains(ip("192.168.4.5")) && !p.contains(ip("192.169.0.1")));
        assert_eq!(
            TrustedProxies::parse(["10.0.0.0/8", "gateway"]).unwrap_err(),
            InvalidProxy("gateway".into())
        );
        assert!(TrustedProxies::parse(["10.0.0.0/33"]).is_err());
    }

    #[test]
    fn ipv6_clients_are_counted_per_64() {
        let a = ClientAddress(ip("2001:db8:1:2:aaaa::1")).network();
        let b = ClientAddress(ip("2001:db8:1:2:bbbb::9")).network();
        assert_eq!(a, b);
        assert_eq!(a, ip("2001:db8:1:2::"));
        assert_ne!(a, ClientAddress(ip("2001:db8:1:3::1")).network());
        let v4 = ClientAddress(ip("203.0.113.9"));
        assert_eq!(v4.network(), v4.ip());
    }
}
