//! Create Subscription: pending, or active at once when asked.

use actix_web::HttpResponse;
use actix_web::http::StatusCode;
use coffer_auth::Caller;
use coffer_events::TraceContext;
use coffer_events::catalogue::SUBSCRIPTION_CREATED;
use serde_json::{Value, json};

use super::commit;
use super::references::{apply_references, await_references};
use crate::error::BillingError;
use crate::plans::domain::GLOBAL_UUID;
use crate::replica::account_organisation;
use crate::schedule::local_date;
use crate::state::BillingState;
use crate::subscriptions::domain::terms::apply_terms;
use crate::subscriptions::domain::{Subscription, SubscriptionStatus, request, state};
use crate::test_clocks::store as test_clocks;
use coffer_http::idempotency::Once;

pub(crate) async fn create(
    st: &BillingState,
    caller: &Caller,
    once: Once,
    body: &Value,
    trace: TraceContext,
) -> Result<HttpResponse, BillingError> {
    let fields = request::read(body).map_err(BillingError::invalid_all)?;
    request::require_for_create(&fields).map_err(BillingError::invalid_all)?;
    let account = fields.account_uuid.clone().unwrap_or_default();
    await_references(st, &account, &fields).await?;
    let lookup = account.clone();
    let organisation = st
        .store
        .query(move |db| account_organisation(db, &lookup))
        .await?
        .ok_or(BillingError::not_found("Account"))?;
    caller.require_account(
        account.parse().map_err(BillingError::internal)?,
        organisation.parse().map_err(BillingError::internal)?,
    )?;
    // A subscription on a test clock lives in the clock's time from its creation on.
    let now = match &fields.test_clock_uuid {
        None => st.clock.unix(),
        Some(uuid) => {
            if fields.test_mode != Some(true) {
                return Err(BillingError::invalid(
                    "test_clock_uuid",
                    "only a test-mode subscription can live on a test clock",
                ));
            }
            let id = uuid.clone();
            st.store
                .query(move |db| test_clocks::find(db, &id))
                .await?
                .filter(|c| c.owner == organisation)
                .ok_or(BillingError::not_found("Test clock"))?
                .frozen_time
        }
    };
    let (timezone, zone) = fields
        .timezone
        .clone()
        .unwrap_or_else(|| ("UTC".to_owned(), coffer_model::zone::UTC));
    let today = local_date(zone, now);
    // Present: require_for_create checked them.
    let (Some(currency), Some((interval_text, interval))) =
        (fields.currency, fields.recurring_interval.clone())
    else {
        return Err(BillingError::internal(
            "currency and recurring_interval were checked",
        ));
    };
    let draft = Subscription {
        uuid: uuid::Uuid::new_v4().to_string(),
        organisation_uuid: organisation,
        account_uuid: account,
        supporter_uuid: None,
        plan_uuid: GLOBAL_UUID.to_owned(),
        payment_source_uuid: String::new(),
        payment_provider: String::new(),
        payment_method: String::new(),
        test_mode: fields.test_mode.unwrap_or(false),
        currency,
        amount: 0,
        timezone,
        zone,
        recurring_interval: interval_text,
        interval,
        anchor_date: today,
        status: SubscriptionStatus::Pending,
        next_due_date: None,
        planned_effective_from: None,
        planned_since: None,
        planned_end: None,
        ended_at: None,
        suspension_start: None,
        suspension_end: None,
        consecutive_failed_invoices: 0,
        custom_parameters: serde_json::Map::new(),
        service_parameters: json!({}),
        created: now,
        test_clock_uuid: fields.test_clock_uuid.clone(),
    };
    let activate = fields.status.as_deref().and_then(SubscriptionStatus::parse)
        == Some(SubscriptionStatus::Active);
    let shared = st.outbox.clone();
    let (clock, outbox) = (st.clock.clone(), shared.clone());
    let response = once
        .run(&st.store, st.clock.as_ref(), move |tx| {
            let mut s = draft.clone();
            apply_references(tx, &mut s, &fields, true)?;
            apply_terms(&mut s, fields.clone());
            if activate {
                state::activate(&mut s, today, now)?;
            }
            let body = commit(
                tx,
                &outbox,
                clock.unix(),
                &s,
                None,
                &SUBSCRIPTION_CREATED,
                &trace,
            )?;
            Ok::<_, BillingError>((StatusCode::CREATED, body))
        })
        .await?;
    shared.committed();
    Ok(response)
}
