//! The references a create or update names (payment source, supporter, plan), checked
//! against what billing has learnt of them from other services' events.

use coffer_store::Db;

use crate::error::BillingError;
use crate::plans::domain::GLOBAL_UUID;
use crate::plans::store as plans;
use crate::replica::{self, account_organisation};
use crate::state::BillingState;
use crate::subscriptions::domain::{Fields, Subscription};

/// Applies the references: the payment source (active, the organisation's, of the same
/// mode), the supporter (the organisation's; set once) and the plan (the organisation's or
/// the global one).
pub(super) fn apply_references(
    tx: &mut Db<'_>,
    s: &mut Subscription,
    f: &Fields,
    creating: bool,
) -> Result<(), BillingError> {
    if let Some(uuid) = &f.payment_source_uuid {
        let source = replica::source(tx, uuid)?
            .filter(|src| src.organisation_uuid == s.organisation_uuid)
            .ok_or(BillingError::not_found("Payment source"))?;
        if !source.is_active() {
            return Err(BillingError::invalid(
                "payment_source_uuid",
                format!("the payment source is {}, not active", source.status),
            ));
        }
        if source.test_mode != s.test_mode {
            return Err(BillingError::invalid(
                "test_mode",
                "must match the payment source's test_mode",
            ));
        }
        s.payment_source_uuid = source.uuid;
        s.payment_provider = source.payment_provider;
        s.payment_method = source.payment_method;
    }
    if let Some(Some(uuid)) = &f.supporter_uuid {
        if !creating && s.supporter_uuid.as_ref().is_some_and(|known| known != uuid) {
            return Err(BillingError::conflict(
                "supporter_uuid can only be set while the subscription has none",
            ));
        }
        if replica::supporter_organisation(tx, uuid)?.as_deref()
            != Some(s.organisation_uuid.as_str())
        {
            return Err(BillingError::not_found("Supporter"));
        }
        s.supporter_uuid = Some(uuid.clone());
    }
    match &f.plan_uuid {
        Some(uuid) if uuid == GLOBAL_UUID => s.plan_uuid = uuid.clone(),
        Some(uuid) => {
            let plan = plans::find(tx, uuid)?
                .filter(|p| p.organisation_uuid.as_deref() == Some(s.organisation_uuid.as_str()))
                .ok_or(BillingError::not_found("Subscription plan"))?;
            s.plan_uuid = plan.uuid;
        }
        None if creating => {
            s.plan_uuid = plans::default_for(tx, &s.organisation_uuid, &s.account_uuid)?
                .map_or_else(|| GLOBAL_UUID.to_owned(), |p| p.uuid);
        }
        None => {}
    }
    Ok(())
}

/// How long a request waits for billing to hear of an account, payment source or supporter
/// it names: they are made in other services and reach billing by their events, which can
/// trail a client that creates a source and then at once a subscription by a moment.
const REFERENCE_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

pub(super) async fn await_references(
    state: &BillingState,
    account: &str,
    f: &Fields,
) -> Result<(), BillingError> {
    let (account, source) = (account.to_owned(), f.payment_source_uuid.clone());
    let supporter = f.supporter_uuid.clone().flatten();
    let started = std::time::Instant::now();
    loop {
        let (a, so, su) = (account.clone(), source.clone(), supporter.clone());
        let known = state
            .store
            .query(move |db| {
                Ok(account_organisation(db, &a)?.is_some()
                    && match &so {
                        Some(uuid) => replica::source(db, uuid)?.is_some(),
                        None => true,
                    }
                    && match &su {
                        Some(uuid) => replica::supporter_organisation(db, uuid)?.is_some(),
                        None => true,
                    })
            })
            .await?;
        if known || started.elapsed() >= REFERENCE_WAIT {
            return Ok(());
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
