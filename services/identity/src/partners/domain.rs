//! What makes a partner valid: a name, and redirect URIs an authorization code may be sent
//! to. They are compared byte for byte at sign-in (sso/), so each is kept as given.

use coffer_model::validation::{FieldError, Violations, display_name};
use url::Url;

/// Longest partner name kept.
pub const MAX_NAME_CHARS: usize = 200;
/// Redirect URIs a partner may register.
pub const MAX_REDIRECT_URIS: usize = 20;
/// Longest redirect URI accepted (a browser's address bar takes far longer ones, but a
/// redirect URI carries no data of its own).
pub const MAX_REDIRECT_URI_CHARS: usize = 2000;

/// A partner to create, as the operator gave it.
#[derive(Debug, Clone)]
pub struct PartnerInput {
    pub name: String,
    pub redirect_uris: Vec<String>,
}

impl PartnerInput {
    /// The name trimmed and the URIs checked; every fault named at once.
    pub fn validate(self) -> Result<PartnerInput, Vec<FieldError>> {
        let mut v = Violations::new();
        let name = v
            .check(display_name("name", &self.name, MAX_NAME_CHARS))
            .unwrap_or_default();
        if self.redirect_uris.is_empty() {
            v.push(FieldError::not_null("redirect_uris"));
        } else if self.redirect_uris.len() > MAX_REDIRECT_URIS {
            v.push(FieldError::not_valid(
                "redirect_uris",
                format!("at most {MAX_REDIRECT_URIS} are allowed"),
            ));
        }
        for (i, uri) in self.redirect_uris.iter().enumerate() {
            if let Err(why) = check_redirect_uri(uri) {
                v.push(FieldError::not_valid(format!("redirect_uris[{i}]"), why));
            }
        }
        let mut redirect_uris = self.redirect_uris;
        redirect_uris.sort();
        redirect_uris.dedup();
        v.finish(PartnerInput {
            name,
            redirect_uris,
        })
    }
}

/// RFC 6749 section 3.1.2 and the OAuth 2.0 security BCP: an absolute URI without a
/// fragment, over https; plain http only to this machine (RFC 8252 section 7.3), for
/// partners' development setups.
pub fn check_redirect_uri(uri: &str) -> Result<(), &'static str> {
    if uri.len() > MAX_REDIRECT_URI_CHARS {
        return Err("must be at most 2000 characters");
    }
    let url = Url::parse(uri).map_err(|_| "must be an absolute URI")?;
    if url.fragment().is_some() {
        return Err("must not have a fragment");
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("must not carry credentials");
    }
    match url.scheme() {
        "https" => Ok(()),
        "http" if is_loopback(&url) => Ok(()),
        "http" => Err("must use https (http only for 127.0.0.1, [::1] or localhost)"),
        _ => Err("must be an https URI"),
    }
}

fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        Some(url::Host::Domain(name)) => name.eq_ignore_ascii_case("localhost"),
        None => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input(name: &str, uris: &[&str]) -> PartnerInput {
        PartnerInput {
            name: name.into(),
            redirect_uris: uris.iter().map(|u| (*u).to_owned()).collect(),
        }
    }

    #[test]
    fn https_and_loopback_http_are_accepted() {
        let ok = input(
            " CRM Partner ",
            &[
                "https://crm.example/cb",
                "http://127.0.0.1:8000/cb",
                "http://localhost/cb",
            ],
        )
        .validate()
        .unwrap();
        assert_eq!(ok.name, "CRM Partner");
        assert_eq!(ok.redirect_uris.len(), 3);
    }

    #[test]
    fn every_fault_is_named() {
        let errors = input(
            "",
            &[
                "http://crm.example/cb",
                "https://crm.example/cb#x",
                "/relative",
                "ftp://x/",
            ],
        )
        .validate()
        .unwrap_err();
        let props: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(
            props,
            [
                "name",
                "redirect_uris[0]",
                "redirect_uris[1]",
                "redirect_uris[2]",
                "redirect_uris[3]"
            ]
        );
    }

    #[test]
    fn a_partner_needs_a_redirect_uri() {
        let errors = input("P", &[]).validate().unwrap_err();
        assert_eq!(errors[0].property, "redirect_uris");
    }
}
