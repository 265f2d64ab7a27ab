//! The HTTP client deliveries go out through. Every address a name resolves to is checked
//! against the [`AddressPolicy`] when the connection is made, and a URL naming an address
//! itself is checked before anything is sent, so neither a private address in the URL nor
//! a name that resolves to one (now or after a DNS change) reaches Coffer's own network.
//! Redirects are not followed (a receiver could redirect anywhere) and no proxy from the
//! environment is used.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

pub use coffer_http::address_policy::Refused;
use coffer_http::address_policy::{AddressPolicy, Unreachable};
use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use url::{Host, Url};

/// How long a receiver has to answer.
pub const TIMEOUT: Duration = Duration::from_millis(super::domain::task::TRY_MS);

type BoxError = Box<dyn std::error::Error + Send + Sync>;

struct Guarded {
    policy: Arc<AddressPolicy>,
}

impl Resolve for Guarded {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = Arc::clone(&self.policy);
        let host = name.as_str().to_owned();
        Box::pin(async move {
            // reqwest puts the URL's port on the addresses it gets.
            match policy.resolve(&host, 0).await {
                Ok(allowed) => Ok(Box::new(allowed.into_iter()) as Addrs),
                Err(Unreachable::Lookup(e)) => Err(Box::new(e) as BoxError),
                Err(Unreachable::Refused(refused)) => Err(Box::new(refused) as BoxError),
            }
        })
    }
}

/// The client, trusting `extra_roots` (PEM) beside the platform's roots.
pub fn client(
    policy: AddressPolicy,
    extra_roots: Option<&[u8]>,
) -> reqwest::Result<reqwest::Client> {
    let mut builder = reqwest::Client::builder()
        .dns_resolver(Arc::new(Guarded {
            policy: Arc::new(policy),
        }))
        .redirect(reqwest::redirect::Policy::none())
        .no_proxy()
        .timeout(TIMEOUT)
        .connect_timeout(Duration::from_secs(5));
    if let Some(pem) = extra_roots {
        for cert in reqwest::Certificate::from_pem_bundle(pem)? {
            builder = builder.add_root_certificate(cert);
        }
    }
    builder.build()
}

/// Refuses a URL whose host is an address the policy does not allow; names are checked
/// when they are resolved.
pub fn check_url(url: &Url, policy: &AddressPolicy) -> Result<(), Refused> {
    let ip: IpAddr = match url.host() {
        Some(Host::Ipv4(v4)) => v4.into(),
        Some(Host::Ipv6(v6)) => v6.into(),
        _ => return Ok(()),
    };
    if policy.permits(ip) {
        Ok(())
    } else {
        Err(Refused(ip.to_string()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Whether an error says the destination was refused, anywhere in its chain.
    fn refused(e: &reqwest::Error) -> bool {
        let mut source: Option<&dyn std::error::Error> = Some(e);
        while let Some(err) = source {
            if err.downcast_ref::<Refused>().is_some() {
                return true;
            }
            source = err.source();
        }
        false
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_a_private_address_is_never_connected_to() {
        let strict = client(AddressPolicy::default(), None).unwrap();
        let e = strict.get("http://localhost:9/").send().await.unwrap_err();
        assert!(refused(&e), "{e:?}");
        // Allowed, the same name is resolved and tried (nothing listens on port 9).
        let widened = client(AddressPolicy::parse("127.0.0.0/8,::1/128").unwrap(), None).unwrap();
        let e = widened.get("http://localhost:9/").send().await.unwrap_err();
        assert!(!refused(&e) && e.is_connect(), "{e:?}");
    }

    #[test]
    fn an_address_in_the_url_is_checked_before_sending() {
        let policy = AddressPolicy::default();
        for url in [
            "https://127.0.0.1/hooks",
            "https://169.254.169.254/latest/meta-data",
            "https://[::1]/",
            "https://[::ffff:10.0.0.1]/",
            "https://2130706433/", // 127.0.0.1 written as one number
        ] {
            assert!(
                check_url(&Url::parse(url).unwrap(), &policy).is_err(),
                "{url}"
            );
        }
        assert!(check_url(&Url::parse("https://93.184.215.14/").unwrap(), &policy).is_ok());
        assert!(check_url(&Url::parse("https://crm.example.org/").unwrap(), &policy).is_ok());
    }
}
