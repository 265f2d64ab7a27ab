//! An endpoint's URL: https only, with a host, and no credentials in it (they go in
//! `username` and `password`, which are kept encrypted). Where it may point (no loopback,
//! private or metadata addresses) is checked when a delivery connects, after the name is
//! resolved, so that a name that later resolves elsewhere cannot slip through.

use coffer_model::validation::FieldError;
use url::Url;

/// Long enough for any receiver's URL with its query, short enough for a log line.
pub const MAX_CHARS: usize = 2_048;

/// The `endpoint` of a create, replace or update.
pub fn endpoint(raw: &str) -> Result<Url, FieldError> {
    const AT: &str = "endpoint";
    let raw = raw.trim();
    if raw.is_empty() {
        return Err(FieldError::not_blank(AT));
    }
    if raw.chars().count() > MAX_CHARS {
        return Err(FieldError::not_valid(
            AT,
            format!("must be at most {MAX_CHARS} characters"),
        ));
    }
    let url = Url::parse(raw).map_err(|_| FieldError::not_valid(AT, "must be a URL"))?;
    if url.scheme() != "https" {
        return Err(FieldError::not_valid(AT, "must start with https://"));
    }
    // The parser reads `https:///path` and `https:/path` as the host `path`: the host
    // must be written where a URL has it, right after `://`.
    let written = raw
        .split_once("://")
        .is_some_and(|(_, rest)| !rest.is_empty() && !rest.starts_with(['/', '\\']));
    if !written || url.host_str().is_none_or(str::is_empty) {
        return Err(FieldError::not_valid(AT, "must name a host"));
    }
    // As stored: escaping can make a URL several times longer than it was written.
    if url.as_str().chars().count() > MAX_CHARS {
        return Err(FieldError::not_valid(
            AT,
            format!("must be at most {MAX_CHARS} characters"),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(FieldError::not_valid(
            AT,
            "must not carry credentials; send username and password",
        ));
    }
    Ok(url)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use coffer_model::validation::codes;

    #[test]
    fn only_an_https_url_with_a_host_and_no_credentials_is_taken() {
        let url = endpoint(" https://crm.example.org/hooks?team=7 ").unwrap();
        assert_eq!(url.as_str(), "https://crm.example.org/hooks?team=7");
        assert_eq!(endpoint("").unwrap_err().code, codes::NOT_BLANK);
        assert_eq!(endpoint("   ").unwrap_err().code, codes::NOT_BLANK);
        for bad in [
            "http://crm.example.org/hooks",
            "ftp://crm.example.org",
            "crm.example.org/hooks",
            "https://",
            "https:///path",
            "https:/path",
            &format!("https://example.org/{}", "é".repeat(1_000)),
            "https://user:secret@crm.example.org/hooks",
            &format!("https://crm.example.org/{}", "a".repeat(MAX_CHARS)),
        ] {
            let e = endpoint(bad).unwrap_err();
            assert_eq!(
                (e.property.as_str(), e.code.as_str()),
                ("endpoint", codes::NOT_VALID),
                "{bad}"
            );
        }
    }
}
