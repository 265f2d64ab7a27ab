//! The donor's payment page without any I/O: its language, its words in German, French,
//! Italian and English, its Content-Security-Policy, and its markup. The page runs no
//! inline script: Coffer's own script (page.js) and the provider's are files, named by the
//! policy, and the page hands them what they need in data attributes.

use coffer_model::money::Money;

/// The page's languages; a payment's `locale` picks one (`de_CH` is German), English else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    De,
    Fr,
    It,
    En,
}

impl Lang {
    pub fn of(locale: Option<&str>) -> Self {
        let language = locale
            .and_then(|l| l.split(['_', '-']).next())
            .map(str::to_ascii_lowercase);
        match language.as_deref() {
            Some("de") => Lang::De,
            Some("fr") => Lang::Fr,
            Some("it") => Lang::It,
            _ => Lang::En,
        }
    }

    fn code(self) -> &'static str {
        match self {
            Lang::De => "de",
            Lang::Fr => "fr",
            Lang::It => "it",
            Lang::En => "en",
        }
    }

    fn words(self) -> &'static Words {
        match self {
            Lang::De => &DE,
            Lang::Fr => &FR,
            Lang::It => &IT,
            Lang::En => &EN,
        }
    }
}

/// What the page says, in one language.
struct Words {
    title: &'static str,
    lead: &'static str,
    amount: &'static str,
    confirm: &'static str,
    working: &'static str,
    no_script: &'static str,
    succeeded_title: &'static str,
    succeeded: &'static str,
    failed_title: &'static str,
    failed: &'static str,
    card_title: &'static str,
    card_lead: &'static str,
    card_label: &'static str,
    pay: &'static str,
    card_unread: &'static str,
    retry: &'static str,
}

const EN: Words = Words {
    title: "Confirm your payment",
    lead: "Your bank asks you to confirm this payment.",
    amount: "Amount",
    confirm: "Confirm payment",
    working: "Waiting for your bank…",
    no_script: "This page needs JavaScript to reach your bank.",
    succeeded_title: "Thank you",
    succeeded: "Your payment went through.",
    failed_title: "Payment declined",
    failed: "Your payment was declined and nothing was charged. You may try again with another card.",
    card_title: "Pay by card",
    card_lead: "Enter your card. Its details go straight to the payment provider.",
    card_label: "Card",
    pay: "Pay",
    card_unread: "The card could not be read. Check its details and try again.",
    retry: "Your payment could not be sent. Please try again.",
};

const DE: Words = Words {
    title: "Zahlung bestätigen",
    lead: "Ihre Bank bittet Sie, diese Zahlung zu bestätigen.",
    amount: "Betrag",
    confirm: "Zahlung bestätigen",
    working: "Warten auf Ihre Bank…",
    no_script: "Diese Seite benötigt JavaScript, um Ihre Bank zu erreichen.",
    succeeded_title: "Vielen Dank",
    succeeded: "Ihre Zahlung war erfolgreich.",
    failed_title: "Zahlung abgelehnt",
    failed: "Ihre Zahlung wurde abgelehnt, es wurde nichts belastet. Versuchen Sie es mit einer anderen Karte.",
    card_title: "Mit Karte bezahlen",
    card_lead: "Geben Sie Ihre Karte ein. Ihre Angaben gehen direkt an den Zahlungsanbieter.",
    card_label: "Karte",
    pay: "Bezahlen",
    card_unread: "Die Karte konnte nicht gelesen werden. Prüfen Sie die Angaben und versuchen Sie es erneut.",
    retry: "Ihre Zahlung konnte nicht gesendet werden. Bitte versuchen Sie es erneut.",
};

const FR: Words = Words {
    title: "Confirmez votre paiement",
    lead: "Votre banque vous demande de confirmer ce paiement.",
    amount: "Montant",
    confirm: "Confirmer le paiement",
    working: "En attente de votre banque…",
    no_script: "Cette page a besoin de JavaScript pour joindre votre banque.",
    succeeded_title: "Merci",
    succeeded: "Votre paiement a été effectué.",
    failed_title: "Paiement refusé",
    failed: "Votre paiement a été refusé et rien n'a été débité. Vous pouvez réessayer avec une autre carte.",
    card_title: "Payer par carte",
    card_lead: "Saisissez votre carte. Ses données vont directement au prestataire de paiement.",
    card_label: "Carte",
    pay: "Payer",
    card_unread: "La carte n'a pas pu être lue. Vérifiez ses données et réessayez.",
    retry: "Votre paiement n'a pas pu être envoyé. Veuillez réessayer.",
};

const IT: Words = Words {
    title: "Conferma il pagamento",
    lead: "La Sua banca Le chiede di confermare questo pagamento.",
    amount: "Importo",
    confirm: "Conferma il pagamento",
    working: "In attesa della Sua banca…",
    no_script: "Questa pagina necessita di JavaScript per raggiungere la Sua banca.",
    succeeded_title: "Grazie",
    succeeded: "Il pagamento è andato a buon fine.",
    failed_title: "Pagamento rifiutato",
    failed: "Il pagamento è stato rifiutato e non è stato addebitato nulla. Può riprovare con un'altra carta.",
    card_title: "Pagare con carta",
    card_lead: "Inserisca la Sua carta. I dati vanno direttamente al fornitore del pagamento.",
    card_label: "Carta",
    pay: "Paga",
    card_unread: "Non è stato possibile leggere la carta. Controlli i dati e riprovi.",
    retry: "Non è stato possibile inviare il pagamento. La preghiamo di riprovare.",
};

/// Where Coffer's own script is served (routes.rs).
pub const SCRIPT_PATH: &str = "/pay/page.js";

/// What the provider's script may load, frame and call on the page.
#[derive(Default)]
pub struct ProviderSources<'a> {
    pub scripts: &'a [String],
    pub frames: &'a [String],
    pub connects: &'a [String],
}

/// The page's policy: nothing but Coffer's script and the provider's, the provider's frames
/// (the bank's challenge) and calls; no inline script or style, no form posted elsewhere,
/// never framed.
pub fn content_security_policy(provider: &ProviderSources<'_>) -> String {
    let list = |sources: &[String], none: &str| {
        if sources.is_empty() {
            none.to_owned()
        } else {
            format!(" {}", sources.join(" "))
        }
    };
    format!(
        "default-src 'none'; script-src 'self'{}; connect-src 'self'{}; frame-src{}; \
         style-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; \
         frame-ancestors 'none'",
        list(provider.scripts, ""),
        list(provider.connects, ""),
        list(provider.frames, " 'none'"),
    )
}

/// What the waiting page hands the scripts.
pub struct Waiting<'a> {
    /// The payment's uuid, whose card form posts to `/pay/{uuid}/card`.
    pub uuid: &'a str,
    pub lang: Lang,
    pub amount: &'a Money,
    pub script: &'a str,
    pub publishable_key: &'a str,
    pub client_secret: &'a str,
    /// Where the page goes once the provider's script is done (the return route).
    pub back: &'a str,
}

/// The page that asks the donor for their card, in the provider's own fields: the
/// provider's script makes a token of it, which the form posts to Coffer (card_path).
pub fn card_page(w: &Waiting<'_>) -> String {
    let words = w.lang.words();
    let body = format!(
        r#"<main id="pay" data-key="{key}" data-back="{back}" data-working="{working}" data-unavailable="{no_script}" data-unread="{unread}" data-retry="{retry}">
<h1>{title}</h1>
<p>{lead}</p>
<p>{amount_label}: <strong>{amount}</strong></p>
<form id="card-form" method="post" action="{action}">
<p id="card-label">{card_label}</p>
<div id="card" role="group" aria-labelledby="card-label"></div>
<input type="hidden" name="token" id="token">
<button type="submit" id="pay-card">{pay}</button>
</form>
<p id="status" role="status" aria-live="polite"></p>
<noscript><p>{no_script}</p></noscript>
</main>"#,
        title = escape(words.card_title),
        key = escape(w.publishable_key),
        back = escape(w.back),
        working = escape(words.working),
        no_script = escape(words.no_script),
        unread = escape(words.card_unread),
        retry = escape(words.retry),
        lead = escape(words.card_lead),
        amount_label = escape(words.amount),
        amount = escape(&shown_amount(w.amount)),
        action = escape(&card_path(w.uuid)),
        card_label = escape(words.card_label),
        pay = escape(words.pay),
    );
    document(w.lang, words.card_title, Some(w.script), &body)
}

/// Where the card form posts the provider's token of the card.
pub fn card_path(uuid: &str) -> String {
    format!("/pay/{uuid}/card")
}

/// The most a token's id may be: Stripe's are about 30 characters.
const TOKEN_MAX: usize = 100;

/// The token the card form posted, as the provider's script made it (`tok_...`), checked
/// before it is sent anywhere.
pub fn card_token(token: &str) -> Result<&str, &'static str> {
    let well_formed = token.len() <= TOKEN_MAX
        && token.strip_prefix("tok_").is_some_and(|rest| {
            !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        });
    if well_formed {
        Ok(token)
    } else {
        Err("must be the token the provider's script made of the card (tok_...)")
    }
}

/// The page that asks the donor to confirm.
pub fn waiting_page(w: &Waiting<'_>) -> String {
    let words = w.lang.words();
    let body = format!(
        r#"<main id="pay" data-key="{key}" data-secret="{secret}" data-back="{back}" data-working="{working}" data-unavailable="{no_script}">
<h1>{title}</h1>
<p>{lead}</p>
<p>{amount_label}: <strong>{amount}</strong></p>
<button type="button" id="confirm">{confirm}</button>
<p id="status" role="status" aria-live="polite"></p>
<noscript><p>{no_script}</p></noscript>
</main>"#,
        title = escape(words.title),
        key = escape(w.publishable_key),
        secret = escape(w.client_secret),
        back = escape(w.back),
        working = escape(words.working),
        lead = escape(words.lead),
        amount_label = escape(words.amount),
        amount = escape(&shown_amount(w.amount)),
        confirm = escape(words.confirm),
        no_script = escape(words.no_script),
    );
    document(w.lang, words.title, Some(w.script), &body)
}

/// An amount as the page shows it: `CHF 25.00`.
fn shown_amount(amount: &Money) -> String {
    format!("{} {}", amount.currency.code(), amount.to_major_string())
}

/// A whole page around `body`, loading the provider's `script` and then Coffer's own when
/// the page needs them.
fn document(lang: Lang, title: &str, script: Option<&str>, body: &str) -> String {
    let scripts = script.map_or_else(String::new, |script| {
        format!(
            "<script src=\"{}\"></script>\n<script src=\"{SCRIPT_PATH}\" defer></script>\n",
            escape(script)
        )
    });
    format!(
        r#"<!doctype html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
{scripts}</head>
<body>
{body}
</body>
</html>
"#,
        lang = lang.code(),
        title = escape(title),
    )
}

/// The page that says how the payment ended, when there is no `return_url` to go back to.
pub fn ended_page(lang: Lang, succeeded: bool) -> String {
    let words = lang.words();
    let (title, text) = if succeeded {
        (words.succeeded_title, words.succeeded)
    } else {
        (words.failed_title, words.failed)
    };
    let body = format!(
        "<main>\n<h1 id=\"outcome\">{}</h1>\n<p>{}</p>\n</main>",
        escape(title),
        escape(text)
    );
    document(lang, title, None, &body)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use coffer_model::currency::Currency;

    use super::*;

    #[test]
    fn a_locale_picks_the_language() {
        assert_eq!(Lang::of(Some("de_CH")), Lang::De);
        assert_eq!(Lang::of(Some("fr-CH")), Lang::Fr);
        assert_eq!(Lang::of(Some("it")), Lang::It);
        assert_eq!(Lang::of(Some("rm_CH")), Lang::En);
        assert_eq!(Lang::of(None), Lang::En);
    }

    #[test]
    fn the_page_escapes_what_it_is_handed_and_runs_no_inline_script() {
        let amount = Money::new(2500, Currency::parse("CHF").unwrap()).unwrap();
        let html = waiting_page(&Waiting {
            lang: Lang::Fr,
            amount: &amount,
            script: "https://js.stripe.com/v3/",
            publishable_key: "pk_test_\"><script>",
            client_secret: "pi_1_secret_2",
            back: "/pay/x/return",
            uuid: "x",
        });
        assert!(html.contains(r#"<html lang="fr">"#));
        assert!(html.contains("CHF 25.00"), "{html}");
        assert!(!html.contains("\"><script>"));
        // Every script element names a file.
        assert_eq!(
            html.matches("<script").count(),
            html.matches("<script src=").count()
        );
    }

    #[test]
    fn the_card_page_posts_to_coffer_and_holds_no_secret() {
        let amount = Money::new(990, Currency::parse("EUR").unwrap()).unwrap();
        let html = card_page(&Waiting {
            lang: Lang::De,
            amount: &amount,
            script: "https://js.stripe.com/v3/",
            publishable_key: "pk_test_1",
            client_secret: "pi_1_secret_2",
            back: "/pay/x/return",
            uuid: "x",
        });
        assert!(html.contains(r#"action="/pay/x/card""#), "{html}");
        assert!(html.contains("Mit Karte bezahlen"), "{html}");
        assert!(!html.contains("pi_1_secret_2"), "{html}");
    }

    #[test]
    fn only_a_token_is_taken_from_the_card_form() {
        assert_eq!(card_token("tok_1Abc_2"), Ok("tok_1Abc_2"));
        for bad in [
            "",
            "tok_",
            "pm_123",
            "tok_1&x=2",
            "4242424242424242",
            &"tok_1".repeat(30),
        ] {
            assert!(card_token(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_policy_names_only_the_providers_sources() {
        let scripts = ["https://js.stripe.com".to_owned()];
        let frames = ["https://hooks.stripe.com".to_owned()];
        let connects = ["https://api.stripe.com".to_owned()];
        let csp = content_security_policy(&ProviderSources {
            scripts: &scripts,
            frames: &frames,
            connects: &connects,
        });
        assert!(
            csp.contains("script-src 'self' https://js.stripe.com;"),
            "{csp}"
        );
        assert!(csp.contains("frame-src https://hooks.stripe.com;"), "{csp}");
        assert!(
            csp.contains("connect-src 'self' https://api.stripe.com;"),
            "{csp}"
        );
        assert!(csp.contains("default-src 'none'"));
        assert!(!csp.contains("unsafe"), "{csp}");
        let ended = content_security_policy(&ProviderSources::default());
        assert!(
            ended.contains("script-src 'self';") && ended.contains("frame-src 'none'"),
            "{ended}"
        );
    }
}
