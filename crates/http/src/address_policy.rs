//! Where Coffer may connect on someone else's behalf: public unicast addresses only, so
//! that an address a customer gives (a webhook endpoint's URL, an SFTP source's host)
//! cannot reach Coffer's own network (loopback, private ranges, the cloud metadata service
//! at 169.254.169.254, carrier-grade NAT, IPv6 unique-local and link-local, and the like).
//! Operators may allow listed subnets (`notifications.allow_subnets`,
//! `reconciliation.sftp_allow_subnets`) for servers on their own network and for tests.
//! The check is made on every address a name resolves to, when the connection is made
//! ([`AddressPolicy::resolve`]), and the caller connects to those addresses and not to the
//! name again, so a name that resolves elsewhere later (DNS rebinding) is caught too.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use ipnet::IpNet;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressPolicy {
    allowed: Vec<IpNet>,
}

impl AddressPolicy {
    /// Public addresses, and those of `allowed` (comma-separated CIDRs; empty for none).
    pub fn parse(allowed: &str) -> Result<Self, String> {
        let allowed = allowed
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|cidr| {
                cidr.parse::<IpNet>()
                    .map_err(|_| format!("{cidr:?} is not a subnet in CIDR form (10.0.0.0/8)"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { allowed })
    }

    /// Whether anything beyond public addresses is allowed (worth a warning at start).
    pub fn widened(&self) -> bool {
        !self.allowed.is_empty()
    }

    pub fn permits(&self, ip: IpAddr) -> bool {
        self.allowed.iter().any(|net| net.contains(&ip)) || is_public(ip)
    }

    /// The addresses `host` resolves to that the policy permits, with `port`: the only
    /// ones to connect to. An address literal is checked as it is.
    pub async fn resolve(&self, host: &str, port: u16) -> Result<Vec<SocketAddr>, Unreachable> {
        let found: Vec<SocketAddr> = tokio::net::lookup_host((host, port))
            .await
            .map_err(Unreachable::Lookup)?
            .collect();
        let allowed: Vec<SocketAddr> = found
            .into_iter()
            .filter(|addr| self.permits(addr.ip()))
            .collect();
        if allowed.is_empty() {
            return Err(Unreachable::Refused(Refused(host.to_owned())));
        }
        Ok(allowed)
    }
}

/// A destination the policy does not allow.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} is not a public address and is not allowed", self.0)
    }
}

impl std::error::Error for Refused {}

/// Why [`AddressPolicy::resolve`] found nowhere to connect.
#[derive(Debug, thiserror::Error)]
pub enum Unreachable {
    #[error("the name does not resolve: {0}")]
    Lookup(std::io::Error),
    #[error(transparent)]
    Refused(Refused),
}

/// Whether `ip` is a public unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    let refused = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0 // "this network"
        || (a == 100 && (64..128).contains(&b)) // carrier-grade NAT
        || (a == 192 && b == 0 && c == 0) // IETF protocol assignments
        || (a == 192 && b == 88 && c == 99) // the retired 6to4 relay anycast
        || (a == 198 && (b == 18 || b == 19)) // benchmarking
        || a >= 240; // reserved
    !refused
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    // Addresses that carry an IPv4 address are judged by it.
    if let Some(v4) = embedded_v4(ip) {
        return is_public_v4(v4);
    }
    // Only global unicast (2000::/3) is public; that leaves out loopback, unique-local,
    // link-local, multicast, discard (100::/64), local-use NAT64 (64:ff9b:1::/48), the
    // IPv4-translated form (::ffff:0:a.b.c.d) and segment routing (5f00::/16).
    let [first, second, ..] = ip.segments();
    if (first & 0xe000) != 0x2000 {
        return false;
    }
    // IETF protocol assignments (2001::/23: Teredo, benchmarking, ORCHID), and the
    // documentation ranges 2001:db8::/32 and 3fff::/20.
    let refused =
        (first == 0x2001 && (second < 0x0200 || second == 0x0db8)) || (first & 0xfff0) == 0x3ff0;
    !refused
}

/// The IPv4 address inside an IPv4-mapped, IPv4-compatible, NAT64 or 6to4 address.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = |hi: u16, lo: u16| {
        let [a, b] = hi.to_be_bytes();
        let [c, d] = lo.to_be_bytes();
        Ipv4Addr::new(a, b, c, d)
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return Some(v4);
    }
    if s[..6] == [0; 6] && !ip.is_loopback() && !ip.is_unspecified() {
        return Some(low(s[6], s[7])); // IPv4-compatible (deprecated)
    }
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low(s[6], s[7])); // NAT64
    }
    if s[0] == 0x2002 {
        return Some(low(s[1], s[2])); // 6to4
    }
    None
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn only_public_unicast_addresses_are_reached() {
        for refused in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "100.127.255.254",
            "0.0.0.0",
            "0.1.2.3",
            "255.255.255.255",
            "224.0.0.1",
            "240.0.0.1",
            "192.0.0.8",
            "192.0.2.1",
            "198.18.0.1",
            "::",
            "::1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "fec0::1",
            "ff02::1",
            "2001:db8::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:c0a8:0101::1",
            "2001:0:4136::1",
            "192.88.99.1",
            "64:ff9b:1::a9fe:a9fe",
            "::ffff:0:a9fe:a9fe",
            "100::1",
            "2001:2::1",
            "2001:10::1",
            "2001:20::1",
            "3fff::1",
            "5f00::1",
        ] {
            assert!(!is_public(ip(refused)), "{refused}");
        }
        for public in [
            "93.184.215.14",
            "1.1.1.1",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700::1111",
            "2a00:1450:4001::200e",
            "2002:0101:0101::1",
            "::ffff:1.1.1.1",
        ] {
            assert!(is_public(ip(public)), "{public}");
        }
    }

    #[test]
    fn listed_subnets_are_allowed_and_a_bad_list_is_named() {
        let policy = AddressPolicy::parse(" 127.0.0.0/8, fd00::/8 ").unwrap();
        assert!(policy.widened());
        assert!(policy.permits(ip("127.0.0.1")) && policy.permits(ip("fd00::5")));
        assert!(!policy.permits(ip("10.0.0.1")));
        assert!(!AddressPolicy::parse("").unwrap().widened());
        assert!(
            AddressPolicy::parse("10.0.0.0/8,localhost")
                .unwrap_err()
                .contains("localhost")
        );
    }

    #[tokio::test]
    async fn a_name_is_resolved_to_the_permitted_addresses_only() {
        let strict = AddressPolicy::default();
        let refused = strict.resolve("localhost", 22).await.unwrap_err();
        assert!(matches!(refused, Unreachable::Refused(_)), "{refused}");
        assert_eq!(
            refused.to_string(),
            "localhost is not a public address and is not allowed"
        );
        assert!(matches!(
            strict.resolve("127.0.0.1", 22).await,
            Err(Unreachable::Refused(_))
        ));
        let widened = AddressPolicy::parse("127.0.0.0/8").unwrap();
        let found = widened.resolve("127.0.0.1", 2222).await.unwrap();
        assert_eq!(found, ["127.0.0.1:2222".parse::<SocketAddr>().unwrap()]);
    }
}
