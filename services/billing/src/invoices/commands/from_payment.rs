//! A subscription born from a payment: a donor gives once with `create_payment_source`
//! and a `subscription` object, and when that payment succeeds billing starts the
//! subscription on the stored source, its first period paid by that payment. It lives
//! with invoices, above subscriptions, because it makes both: the subscription and its
//! first invoice, paid.

use chrono::NaiveDate;
use coffer_events::Outbox;
use coffer_events::catalogue::SUBSCRIPTION_CREATED;
use coffer_model::currency::Currency;
use coffer_model::zone;
use coffer_store::Db;
use serde_json::{Map, json};

use crate::error::BillingError;
use crate::invoices::domain::{AttemptStatus, ChargeAttempt, charging, state as invoice_state};
use crate::invoices::events::{self as invoice_events, PaymentStart};
use crate::invoices::store as invoices;
use crate::plans::domain::GLOBAL_UUID;
use crate::plans::store as plans;
use crate::schedule::{Schedule, due_instant, local_date};
use crate::subscriptions::domain::{Subscription, SubscriptionStatus, request};
use crate::subscriptions::events::announce_change;
use crate::subscriptions::store as subscriptions;

/// The subscription's uuid follows from the payment's, so a redelivered event finds it.
fn uuid_for(payment: &str) -> String {
    uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_URL,
        format!("coffer:subscription-of-payment:{payment}").as_bytes(),
    )
    .to_string()
}

/// Starts the subscription a payment asked for, once however often the event comes.
pub(crate) fn start_from_payment(
    db: &mut Db<'_>,
    outbox: &Outbox,
    now: i64,
    start: PaymentStart<'_>,
) -> Result<(), BillingError> {
    let PaymentStart {
        payment_uuid: payment,
        payment: data,
        terms,
        source_uuid: source,
    } = start;
    let uuid = uuid_for(&payment);
    if subscriptions::find(db, &uuid)?.is_some() {
        return Ok(());
    }
    // The terms were the donor's; ones billing cannot read start nothing (and say why).
    let fields = match request::read(&serde_json::Value::Object(terms)) {
        Ok(f) if f.recurring_interval.is_some() => f,
        other => {
            tracing::warn!(payment = %payment, problems = ?other.err(), "a payment's subscription terms are unusable; no subscription");
            return Ok(());
        }
    };
    let text = |k: &str| data[k].as_str().unwrap_or_default().to_owned();
    let Ok(currency) = Currency::parse(data["amount"]["currency"].as_str().unwrap_or_default())
    else {
        return Ok(());
    };
    let Some(amount) = data["amount"]["value"]
        .as_str()
        .and_then(|v| v.parse::<i64>().ok())
    else {
        return Ok(());
    };
    let (timezone, zone) = fields
        .timezone
        .clone()
        .unwrap_or_else(|| ("UTC".into(), zone::UTC));
    let paid_at = data["created"].as_i64().unwrap_or(now);
    let anchor: NaiveDate = fields
        .planned_effective_from
        .flatten()
        .unwrap_or_else(|| local_date(zone, paid_at));
    let Some((interval_text, interval)) = fields.recurring_interval.clone() else {
        return Ok(());
    };
    let organisation = text("organisation_uuid");
    let account = text("account_uuid");
    // The plan named, when it is the global one or the organisation's; otherwise (none
    // named, or one this organisation does not have) the default, as Create Subscription
    // would choose it.
    let named = match fields.plan_uuid.as_deref() {
        Some(GLOBAL_UUID) => Some(GLOBAL_UUID.to_owned()),
        Some(uuid) => plans::find(db, uuid)?
            .filter(|p| p.organisation_uuid.as_deref() == Some(organisation.as_str()))
            .map(|p| p.uuid),
        None => None,
    };
    if named.is_none() && fields.plan_uuid.is_some() {
        tracing::warn!(payment = %payment, plan = ?fields.plan_uuid, "a payment names a plan its organisation does not have; the default plan is used");
    }
    let plan = match named {
        Some(p) => p,
        None => plans::default_for(db, &organisation, &account)?
            .map_or_else(|| GLOBAL_UUID.to_owned(), |p| p.uuid),
    };
    let schedule = Schedule {
        interval: interval.clone(),
        anchor,
    };
    let mut s = Subscription {
        uuid,
        organisation_uuid: organisation.clone(),
        account_uuid: account.clone(),
        supporter_uuid: data["supporter_uuid"].as_str().map(str::to_owned),
        plan_uuid: plan,
        payment_source_uuid: source.to_owned(),
        payment_provider: text("payment_provider"),
        payment_method: text("payment_method"),
        test_mode: data["test_mode"].as_bool().unwrap_or(false),
        currency,
        amount,
        timezone,
        zone,
        recurring_interval: interval_text,
        interval,
        anchor_date: anchor,
        status: SubscriptionStatus::Active,
        next_due_date: schedule.after(anchor).map(|d| due_instant(zone, d)),
        planned_effective_from: fields.planned_effective_from.flatten(),
        planned_since: Some(paid_at),
        planned_end: fields.planned_end.flatten(),
        ended_at: None,
        suspension_start: None,
        suspension_end: None,
        consecutive_failed_invoices: 0,
        custom_parameters: fields.custom_parameters.clone().unwrap_or_else(Map::new),
        service_parameters: fields
            .service_parameters
            .clone()
            .unwrap_or_else(|| json!({})),
        created: paid_at,
        test_clock_uuid: None,
    };
    subscriptions::insert(db, &s)?;
    // The first period, paid by the payment itself.
    let mut invoice = charging::draft(
        &s,
        Some(anchor.format("%Y-%m-%d").to_string()),
        due_instant(zone, anchor),
        paid_at,
    );
    invoice_state::pay(&mut invoice);
    invoices::insert_invoice(db, &invoice)?;
    let attempt = ChargeAttempt {
        uuid: uuid::Uuid::new_v4().to_string(),
        invoice_uuid: invoice.uuid.clone(),
        subscription_uuid: s.uuid.clone(),
        status: AttemptStatus::Succeeded,
        status_reason: None,
        payment_uuid: Some(payment.clone()),
        created: paid_at,
    };
    invoices::insert_attempt(db, &attempt)?;
    s.planned_since = Some(paid_at);
    let mut body = subscriptions::rendered(db, &s)?;
    // Payments learns from this which of its payments started the subscription.
    body["payment_uuid"] = json!(payment);
    announce_change(db, outbox, &SUBSCRIPTION_CREATED, &s, body, None)?;
    invoice_events::created(db, outbox, &invoice, invoice.render(&[attempt]), None)?;
    Ok(())
}
