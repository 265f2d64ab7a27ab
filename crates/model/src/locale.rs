//! Locales in the one form SPEC.md allows: `language_TERRITORY`, such as `de_CH`.

use crate::country::CountryCode;
use crate::validation::FieldError;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocaleError {
    #[error("a locale is written language_TERRITORY, such as de_CH")]
    Format,
    #[error("{0} is not an ISO 3166-1 country code")]
    UnknownTerritory(String),
}

/// Case is forgiven on input (`DE_ch` becomes `de_CH`) because it carries no meaning, but the
/// separator and territory are required: `de-CH` and `de` are different spellings SPEC.md
/// does not allow.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Locale(String);

impl Locale {
    pub fn parse(raw: &str) -> Result<Locale, LocaleError> {
        let (language, territory) = raw.split_once('_').ok_or(LocaleError::Format)?;
        let language_ok =
            (2..=3).contains(&language.len()) && language.bytes().all(|b| b.is_ascii_alphabetic());
        let territory_ok =
            territory.len() == 2 && territory.bytes().all(|b| b.is_ascii_alphabetic());
        if !language_ok || !territory_ok {
            return Err(LocaleError::Format);
        }
        let territory = CountryCode::parse(territory)
            .map_err(|_| LocaleError::UnknownTerritory(territory.to_ascii_uppercase()))?;
        Ok(Locale(format!(
            "{}_{}",
            language.to_ascii_lowercase(),
            territory.as_str()
        )))
    }

    pub fn parse_field(property: &str, raw: &str) -> Result<Locale, FieldError> {
        Self::parse(raw).map_err(|e| FieldError::not_valid(property, e.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn language(&self) -> &str {
        self.0.split_once('_').map_or(self.0.as_str(), |(l, _)| l)
    }

    pub fn territory(&self) -> &str {
        self.0.split_once('_').map_or("", |(_, t)| t)
    }
}

crate::serde_str::validated_string!(Locale);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn accepts_and_normalises_case() {
        for (raw, stored) in [
            ("de_CH", "de_CH"),
            ("de_ch", "de_CH"),
            ("DE_ch", "de_CH"),
            ("gsw_CH", "gsw_CH"),
            ("en_GB", "en_GB"),
        ] {
            assert_eq!(Locale::parse(raw).unwrap().as_str(), stored, "{raw}");
        }
        let l = Locale::parse("fr_CH").unwrap();
        assert_eq!((l.language(), l.territory()), ("fr", "CH"));
    }

    #[test]
    fn rejects_other_forms() {
        for raw in [
            "", "de", "de-CH", "de_", "_CH", "d_CH", "deut_CH", "de_CHE", "de_CH_x", "de__CH",
            "d1_CH", " de_CH",
        ] {
            assert_eq!(Locale::parse(raw), Err(LocaleError::Format), "{raw:?}");
        }
        assert_eq!(
            Locale::parse("de_ZZ"),
            Err(LocaleError::UnknownTerritory("ZZ".to_owned()))
        );
    }

    #[test]
    fn serde_round_trip() {
        let l: Locale = serde_json::from_str("\"it_ch\"").unwrap();
        assert_eq!(serde_json::to_string(&l).unwrap(), "\"it_CH\"");
        assert!(serde_json::from_str::<Locale>("\"it-CH\"").is_err());
    }

    #[test]
    fn parse_field_names_the_property() {
        let err = Locale::parse_field("user.locale", "de").unwrap_err();
        assert_eq!(err.property, "user.locale");
        assert_eq!(err.code, crate::validation::codes::NOT_VALID);
    }
}
