//! What makes a user valid, and how an address is matched at sign-in.

use coffer_model::email::Email;
use coffer_model::validation::{FieldError, Violations, display_name};
use serde::Serialize;
use uuid::Uuid;

/// Longest name kept.
pub const MAX_NAME_CHARS: usize = 200;
/// Shortest password accepted (NIST SP 800-63B asks for at least 8; users set theirs once).
pub const MIN_PASSWORD_CHARS: usize = 10;
/// Longest password accepted: hashing is the costly part of a sign-in, and its cost grows
/// with the input, so an unbounded one would be a lever for whoever sends it.
pub const MAX_PASSWORD_BYTES: usize = 1024;
/// Locales the login page speaks, and a user may prefer.
pub const LOCALES: [&str; 4] = ["en", "de", "fr", "it"];

/// A user to create.
#[derive(Debug, Clone)]
pub struct UserInput {
    pub email: String,
    pub name: String,
    pub organisation_uuid: Uuid,
    pub locale: Option<String>,
    /// None: the user cannot sign in until one is set.
    pub password: Option<String>,
}

/// A checked [`UserInput`].
#[derive(Debug, Clone)]
pub struct ValidUser {
    pub email: Email,
    pub name: String,
    pub organisation_uuid: Uuid,
    pub locale: Option<String>,
    pub password: Option<String>,
}

impl UserInput {
    pub fn validate(self) -> Result<ValidUser, Vec<FieldError>> {
        let mut v = Violations::new();
        let email = v.check(Email::parse_field("email", self.email.trim()));
        let name = v
            .check(display_name("name", &self.name, MAX_NAME_CHARS))
            .unwrap_or_default();
        if let Some(locale) = &self.locale
            && !LOCALES.contains(&locale.as_str())
        {
            v.push(FieldError::invalid_choice(
                "locale",
                "must be one of en, de, fr, it",
            ));
        }
        if let Some(password) = &self.password
            && let Err(e) = check_password("password", password)
        {
            v.push(e);
        }
        let (Some(email), true) = (email, v.is_empty()) else {
            return Err(v.into_vec());
        };
        Ok(ValidUser {
            email,
            name,
            organisation_uuid: self.organisation_uuid,
            locale: self.locale,
            password: self.password,
        })
    }
}

/// A password new to Coffer: long enough to resist guessing, short enough to hash cheaply.
pub fn check_password(property: &str, password: &str) -> Result<(), FieldError> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(FieldError::not_valid(
            property,
            format!("must be at least {MIN_PASSWORD_CHARS} characters"),
        ));
    }
    if password.len() > MAX_PASSWORD_BYTES {
        return Err(FieldError::not_valid(
            property,
            format!("must be at most {MAX_PASSWORD_BYTES} bytes"),
        ));
    }
    Ok(())
}

/// How an address is looked up: the whole of it lowercased. The local part is
/// case-sensitive by the RFC, but no mail provider hands out `Ann@` and `ann@` to two
/// people, while people do type their address in either case.
pub fn email_key(email: &str) -> String {
    email.trim().to_lowercase()
}

/// A user as `coffer admin` prints it; never its password.
#[derive(Debug, Clone, Serialize)]
pub struct UserView {
    pub uuid: String,
    pub email: String,
    pub name: String,
    pub organisation_uuid: String,
    pub locale: Option<String>,
    pub has_password: bool,
    pub created: i64,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn input(email: &str, name: &str, password: Option<&str>) -> UserInput {
        UserInput {
            email: email.into(),
            name: name.into(),
            organisation_uuid: Uuid::nil(),
            locale: None,
            password: password.map(str::to_owned),
        }
    }

    #[test]
    fn a_user_needs_an_address_a_name_and_a_long_enough_password() {
        let errors = input("nope", " ", Some("short")).validate().unwrap_err();
        let props: Vec<&str> = errors.iter().map(|e| e.property.as_str()).collect();
        assert_eq!(props, ["email", "name", "password"]);
        assert!(input("ann@example.org", "Ann", None).validate().is_ok());
    }

    #[test]
    fn addresses_match_whatever_their_case() {
        assert_eq!(email_key(" Ann@Example.ORG"), "ann@example.org");
    }

    #[test]
    fn overlong_passwords_are_refused() {
        let long = "x".repeat(MAX_PASSWORD_BYTES + 1);
        assert!(check_password("password", &long).is_err());
        assert!(check_password("password", "correct horse").is_ok());
    }
}
