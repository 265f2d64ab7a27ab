//! What a provider's word on a charge does to the payment it names, without any I/O. A
//! notification is one more answer to the payment's call, so it follows the same rule as
//! every answer: it decides a payment whose outcome is not known yet, and nothing else. A
//! payment that has ended (whoever heard first) never moves again, whatever arrives late
//! or out of order; a word about another object than the one the payment recorded, or of
//! another amount, changes nothing.

use crate::shared::connector::{ChargeOutcome, Charged};
use crate::shared::record::{ChargeState, Payment, PaymentStatus};

/// What of a payment decides a verdict.
#[derive(Debug, Clone, Copy)]
pub struct Standing<'a> {
    pub provider_payment_id: Option<&'a str>,
    pub charge_state: ChargeState,
    pub status: PaymentStatus,
    /// The payment keeps its instrument as a payment source, whose provider reference only
    /// the provider's own answer carries.
    pub keeps_source: bool,
}

impl<'a> Standing<'a> {
    pub fn of(payment: &'a Payment) -> Self {
        Self {
            provider_payment_id: payment.provider_payment_id.as_deref(),
            charge_state: payment.charge_state,
            status: payment.status,
            keeps_source: payment.created_payment_source_uuid.is_some(),
        }
    }
}

/// What the notification names, as checked against the payment.
pub struct Word<'a> {
    /// The provider's object (Stripe: the PaymentIntent).
    pub provider_payment_id: &'a str,
    /// Whether it is of the payment's amount and currency.
    pub same_money: bool,
    pub outcome: &'a ChargeOutcome,
}

/// What is done with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The payment's call is still unanswered: this is its answer.
    Answer(Charged),
    /// The payment waits with its call answered (for the donor or the bank): it ends so.
    End {
        status: PaymentStatus,
        reason: Option<String>,
    },
    /// Nothing changes.
    Keep(Kept),
}

/// Why nothing changes; the metrics' label, and what the log says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kept {
    /// The payment ended as the notification says (its own answer, the settler, or an
    /// earlier notification).
    AlreadyRecorded,
    /// The payment ended otherwise: the provider and Coffer disagree, which an operator
    /// must look at (logged as an error).
    Disagrees,
    /// Not the object the payment recorded (an intent the settler cancelled, or one made
    /// elsewhere with a copied metadata), or not the payment's money.
    NotThePayments,
    /// Not the outcome of a charge (the notification says it is still under way), or a
    /// call not yet sent.
    Undecided,
    /// The payment keeps a source, which a notification cannot say how to charge again:
    /// the settler asks the provider (`find_charge`), whose answer says.
    LeftToSettler,
    /// A test event sent to a live connector account's endpoint, or the reverse.
    OtherMode,
    /// An event Coffer does not act on.
    NotActedOn,
}

impl Kept {
    pub fn as_str(self) -> &'static str {
        match self {
            Kept::AlreadyRecorded => "already_recorded",
            Kept::Disagrees => "disagrees",
            Kept::NotThePayments => "not_the_payments",
            Kept::Undecided => "undecided",
            Kept::LeftToSettler => "left_to_settler",
            Kept::OtherMode => "other_mode",
            Kept::NotActedOn => "not_acted_on",
        }
    }
}

/// What `word` does to the payment standing as `payment`.
pub fn verdict(payment: Standing<'_>, word: &Word<'_>) -> Verdict {
    let said = match word.outcome {
        ChargeOutcome::Succeeded { .. } => (PaymentStatus::Succeeded, None),
        ChargeOutcome::Failed { reason, .. } => (PaymentStatus::Failed, Some(reason.clone())),
        ChargeOutcome::Pending { .. } => return Verdict::Keep(Kept::Undecided),
    };
    // The object is recorded on the payment before it is ever asked to charge
    // (shared/connector.rs, `Prepared`), so a charge decided at the provider is always the
    // recorded one.
    let recorded = payment.provider_payment_id == Some(word.provider_payment_id);
    if !recorded || (said.0 == PaymentStatus::Succeeded && !word.same_money) {
        return Verdict::Keep(Kept::NotThePayments);
    }
    match (payment.charge_state, payment.status) {
        (ChargeState::Calling, _) if payment.keeps_source => Verdict::Keep(Kept::LeftToSettler),
        (ChargeState::Calling, _) => Verdict::Answer(Charged {
            outcome: word.outcome.clone(),
            stored: None,
        }),
        (ChargeState::Reserved, _) => Verdict::Keep(Kept::Undecided),
        (ChargeState::Done, PaymentStatus::Pending) => Verdict::End {
            status: said.0,
            reason: said.1,
        },
        (ChargeState::Done, status) if status == said.0 => Verdict::Keep(Kept::AlreadyRecorded),
        // A cancelled payment was never charged: a failure agrees with it.
        (ChargeState::Done, PaymentStatus::Cancelled) if said.0 == PaymentStatus::Failed => {
            Verdict::Keep(Kept::AlreadyRecorded)
        }
        (ChargeState::Done, _) => Verdict::Keep(Kept::Disagrees),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payment(charge_state: ChargeState, status: PaymentStatus) -> Standing<'static> {
        Standing {
            provider_payment_id: Some("pi_1"),
            charge_state,
            status,
            keeps_source: false,
        }
    }

    fn succeeded(id: &str) -> ChargeOutcome {
        ChargeOutcome::Succeeded {
            provider_payment_id: id.into(),
        }
    }

    fn word<'a>(outcome: &'a ChargeOutcome, same_money: bool) -> Word<'a> {
        Word {
            provider_payment_id: "pi_1",
            same_money,
            outcome,
        }
    }

    #[test]
    fn an_unanswered_call_takes_it_as_its_answer() {
        let outcome = succeeded("pi_1");
        let calling = payment(ChargeState::Calling, PaymentStatus::Pending);
        assert_eq!(
            verdict(calling, &word(&outcome, true)),
            Verdict::Answer(Charged {
                outcome: outcome.clone(),
                stored: None
            })
        );
    }

    #[test]
    fn a_waiting_payment_ends() {
        let failed = ChargeOutcome::Failed {
            provider_payment_id: "pi_1".into(),
            reason: "insufficient_funds".into(),
        };
        let waiting = payment(ChargeState::Done, PaymentStatus::Pending);
        assert_eq!(
            verdict(waiting, &word(&failed, true)),
            Verdict::End {
                status: PaymentStatus::Failed,
                reason: Some("insufficient_funds".into())
            }
        );
    }

    #[test]
    fn an_ended_payment_never_moves() {
        let outcome = succeeded("pi_1");
        let done = payment(ChargeState::Done, PaymentStatus::Succeeded);
        assert_eq!(
            verdict(done, &word(&outcome, true)),
            Verdict::Keep(Kept::AlreadyRecorded)
        );
        let failed = payment(ChargeState::Done, PaymentStatus::Failed);
        assert_eq!(
            verdict(failed, &word(&outcome, true)),
            Verdict::Keep(Kept::Disagrees)
        );
        let late_failure = ChargeOutcome::Failed {
            provider_payment_id: "pi_1".into(),
            reason: "card_declined".into(),
        };
        assert_eq!(
            verdict(done, &word(&late_failure, true)),
            Verdict::Keep(Kept::Disagrees)
        );
    }

    #[test]
    fn another_object_or_other_money_changes_nothing() {
        let outcome = succeeded("pi_2");
        let calling = payment(ChargeState::Calling, PaymentStatus::Pending);
        let other = Word {
            provider_payment_id: "pi_2",
            same_money: true,
            outcome: &outcome,
        };
        assert_eq!(
            verdict(calling, &other),
            Verdict::Keep(Kept::NotThePayments)
        );
        let unrecorded = Standing {
            provider_payment_id: None,
            ..calling
        };
        let outcome = succeeded("pi_1");
        assert_eq!(
            verdict(unrecorded, &word(&outcome, true)),
            Verdict::Keep(Kept::NotThePayments)
        );
        assert_eq!(
            verdict(calling, &word(&outcome, false)),
            Verdict::Keep(Kept::NotThePayments)
        );
    }

    #[test]
    fn a_call_that_keeps_a_source_is_left_to_the_settler() {
        let outcome = succeeded("pi_1");
        let keeping = Standing {
            keeps_source: true,
            ..payment(ChargeState::Calling, PaymentStatus::Pending)
        };
        assert_eq!(
            verdict(keeping, &word(&outcome, true)),
            Verdict::Keep(Kept::LeftToSettler)
        );
        let cancelled = payment(ChargeState::Done, PaymentStatus::Cancelled);
        let failed = ChargeOutcome::Failed {
            provider_payment_id: "pi_1".into(),
            reason: "canceled".into(),
        };
        assert_eq!(
            verdict(cancelled, &word(&failed, true)),
            Verdict::Keep(Kept::AlreadyRecorded)
        );
    }

    #[test]
    fn a_word_still_under_way_is_undecided() {
        let pending = ChargeOutcome::Pending {
            provider_payment_id: "pi_1".into(),
            redirect: None,
        };
        let calling = payment(ChargeState::Calling, PaymentStatus::Pending);
        assert_eq!(
            verdict(calling, &word(&pending, true)),
            Verdict::Keep(Kept::Undecided)
        );
    }
}
