//! Whether a file is what its blueprint expects: the message, its version and the
//! accounts. A file that does not fit is refused whole, with the reason in its report.

use coffer_camt::Document;

use crate::blueprints::store::Blueprint;

pub fn check(document: &Document, blueprint: &Blueprint) -> Result<(), String> {
    let message = document.message_type.as_str();
    if message != blueprint.message_type.as_str() {
        return Err(format!(
            "the file is a {message} message; the blueprint reads {}",
            blueprint.message_type
        ));
    }
    if !blueprint.versions.is_empty() && !blueprint.versions.contains(&document.version) {
        return Err(format!(
            "the file is version {}; the blueprint accepts {}",
            document.version,
            blueprint.versions.join(", ")
        ));
    }
    if !blueprint.ibans.is_empty() {
        for statement in &document.statements {
            let account = statement
                .account
                .iban
                .as_deref()
                .or(statement.account.other_id.as_deref())
                .unwrap_or("an account without an id");
            if !blueprint.ibans.iter().any(|iban| iban == account) {
                return Err(format!(
                    "statement {} is for {account}, which the blueprint does not expect (it expects {})",
                    statement.id,
                    blueprint.ibans.join(", ")
                ));
            }
        }
    }
    Ok(())
}
