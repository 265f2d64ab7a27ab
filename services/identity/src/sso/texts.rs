//! The login page's words in the four languages Coffer speaks.

use super::domain::authorize::PageFault;

pub struct Texts {
    pub lang: &'static str,
    pub title: &'static str,
    /// Followed by the partner's name.
    pub sign_in_to: &'static str,
    pub intro: &'static str,
    pub email: &'static str,
    pub password: &'static str,
    pub submit: &'static str,
    /// Never says which of the two was wrong, nor whether the address has an account.
    pub wrong: &'static str,
    /// Followed by the seconds to wait.
    pub wait: &'static str,
    pub form_expired: &'static str,
    pub error_title: &'static str,
    pub unavailable: &'static str,
    pub unreadable: &'static str,
    /// Coffer's error page, when the request names no client (client_id)...
    pub no_client: &'static str,
    /// ...an unknown or disabled one...
    pub unknown_client: &'static str,
    /// ...no redirect_uri...
    pub no_redirect_uri: &'static str,
    /// ...or one its client did not register.
    pub unregistered_redirect_uri: &'static str,
}

const EN: Texts = Texts {
    lang: "en",
    title: "Sign in",
    sign_in_to: "Sign in to continue to",
    intro: "Use your Coffer e-mail address and password.",
    email: "E-mail address",
    password: "Password",
    submit: "Sign in",
    wrong: "The e-mail address or the password is not right.",
    wait: "Too many attempts. Please wait before trying again. Seconds left:",
    form_expired: "This form has expired. Please sign in again.",
    error_title: "Sign-in is not possible",
    unavailable: "Sign-in is not available just now. Please try again later.",
    unreadable: "The form could not be read. Please go back to the application and sign in again.",
    no_client: "The request names no client (client_id). Please go back to the application.",
    unknown_client: "The request names no known client. Please go back to the application.",
    no_redirect_uri: "The request has no redirect_uri. Please go back to the application.",
    unregistered_redirect_uri: "The redirect_uri is not one this client registered. Please go back to the application.",
};

const DE: Texts = Texts {
    lang: "de",
    title: "Anmelden",
    sign_in_to: "Anmelden und weiter zu",
    intro: "Verwenden Sie Ihre E-Mail-Adresse und Ihr Passwort für Coffer.",
    email: "E-Mail-Adresse",
    password: "Passwort",
    submit: "Anmelden",
    wrong: "Die E-Mail-Adresse oder das Passwort ist nicht korrekt.",
    wait: "Zu viele Versuche. Bitte warten Sie, bevor Sie es erneut versuchen. Verbleibende Sekunden:",
    form_expired: "Dieses Formular ist abgelaufen. Bitte melden Sie sich erneut an.",
    error_title: "Anmeldung nicht möglich",
    unavailable: "Die Anmeldung ist gerade nicht verfügbar. Bitte versuchen Sie es später erneut.",
    unreadable: "Das Formular konnte nicht gelesen werden. Bitte kehren Sie zur Anwendung zurück und melden Sie sich erneut an.",
    no_client: "Die Anfrage nennt keine Anwendung (client_id). Bitte kehren Sie zur Anwendung zurück.",
    unknown_client: "Die Anfrage nennt keine bekannte Anwendung. Bitte kehren Sie zur Anwendung zurück.",
    no_redirect_uri: "Die Anfrage hat keine redirect_uri. Bitte kehren Sie zur Anwendung zurück.",
    unregistered_redirect_uri: "Diese redirect_uri hat die Anwendung nicht registriert. Bitte kehren Sie zur Anwendung zurück.",
};

const FR: Texts = Texts {
    lang: "fr",
    title: "Connexion",
    sign_in_to: "Connectez-vous pour continuer vers",
    intro: "Utilisez votre adresse e-mail et votre mot de passe Coffer.",
    email: "Adresse e-mail",
    password: "Mot de passe",
    submit: "Se connecter",
    wrong: "L'adresse e-mail ou le mot de passe n'est pas correct.",
    wait: "Trop de tentatives. Veuillez patienter avant de réessayer. Secondes restantes :",
    form_expired: "Ce formulaire a expiré. Veuillez vous reconnecter.",
    error_title: "Connexion impossible",
    unavailable: "La connexion n'est pas disponible pour le moment. Veuillez réessayer plus tard.",
    unreadable: "Le formulaire n'a pas pu être lu. Veuillez revenir à l'application et vous reconnecter.",
    no_client: "La demande ne nomme aucune application (client_id). Veuillez revenir à l'application.",
    unknown_client: "La demande ne nomme aucune application connue. Veuillez revenir à l'application.",
    no_redirect_uri: "La demande n'a pas de redirect_uri. Veuillez revenir à l'application.",
    unregistered_redirect_uri: "Cette redirect_uri n'a pas été enregistrée par l'application. Veuillez revenir à l'application.",
};

const IT: Texts = Texts {
    lang: "it",
    title: "Accesso",
    sign_in_to: "Accedi per continuare su",
    intro: "Usa l'indirizzo e-mail e la password del tuo account Coffer.",
    email: "Indirizzo e-mail",
    password: "Password",
    submit: "Accedi",
    wrong: "L'indirizzo e-mail o la password non sono corretti.",
    wait: "Troppi tentativi. Attendi prima di riprovare. Secondi rimanenti:",
    form_expired: "Questo modulo è scaduto. Accedi di nuovo.",
    error_title: "Accesso non possibile",
    unavailable: "L'accesso non è disponibile al momento. Riprova più tardi.",
    unreadable: "Non è stato possibile leggere il modulo. Torna all'applicazione e accedi di nuovo.",
    no_client: "La richiesta non indica alcuna applicazione (client_id). Torna all'applicazione.",
    unknown_client: "La richiesta non indica alcuna applicazione conosciuta. Torna all'applicazione.",
    no_redirect_uri: "La richiesta non ha una redirect_uri. Torna all'applicazione.",
    unregistered_redirect_uri: "Questa redirect_uri non è stata registrata dall'applicazione. Torna all'applicazione.",
};

impl Texts {
    /// What Coffer's error page says of a request it cannot send back.
    pub fn fault(&self, fault: PageFault) -> &'static str {
        match fault {
            PageFault::NoClient => self.no_client,
            PageFault::UnknownClient => self.unknown_client,
            PageFault::NoRedirectUri => self.no_redirect_uri,
            PageFault::UnregisteredRedirectUri => self.unregistered_redirect_uri,
        }
    }
}

pub fn of(locale: &str) -> &'static Texts {
    match locale {
        "de" => &DE,
        "fr" => &FR,
        "it" => &IT,
        _ => &EN,
    }
}
