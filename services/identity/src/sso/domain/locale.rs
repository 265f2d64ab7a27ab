//! The login page's language: the first of `ui_locales` Coffer speaks (OpenID Connect Core
//! section 3.1.2.1), else the best of `Accept-Language` by weight, else English.

use crate::users::domain::LOCALES;

/// Only the primary subtag counts: `de-CH` is German, `fr-BE` French.
fn primary(tag: &str) -> Option<&'static str> {
    let lang = tag.trim().split(['-', '_']).next()?.to_ascii_lowercase();
    LOCALES.into_iter().find(|l| *l == lang)
}

pub fn pick(ui_locales: Option<&str>, accept_language: Option<&str>) -> &'static str {
    if let Some(found) = ui_locales
        .into_iter()
        .flat_map(|v| v.split(' '))
        .find_map(primary)
    {
        return found;
    }
    let mut best: Option<(&'static str, f32)> = None;
    for part in accept_language.unwrap_or("").split(',').take(32) {
        let mut pieces = part.split(';');
        let Some(lang) = pieces.next().and_then(primary) else {
            continue;
        };
        let weight = pieces
            .find_map(|p| p.trim().strip_prefix("q="))
            .and_then(|q| q.trim().parse::<f32>().ok())
            .unwrap_or(1.0);
        if weight > 0.0 && best.is_none_or(|(_, w)| weight > w) {
            best = Some((lang, weight));
        }
    }
    best.map_or("en", |(lang, _)| lang)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ui_locales_come_first() {
        assert_eq!(pick(Some("es fr-CH"), Some("de")), "fr");
    }

    #[test]
    fn accept_language_is_read_by_weight() {
        assert_eq!(pick(None, Some("es, it;q=0.4, de-CH;q=0.8")), "de");
        assert_eq!(pick(None, Some("es, ja")), "en");
        assert_eq!(pick(None, None), "en");
    }
}
