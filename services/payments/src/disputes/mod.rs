//! Disputes: a donor's bank taking back a payment charged through a provider outside the
//! process (a chargeback), as the provider reports it (Stripe's `charge.dispute.*`
//! notifications, provider_notifications/). Each is recorded on its payment, announced as
//! an event, and listed with the payment (docs/payments.md, "Disputes").

pub mod commands;
pub mod domain;
pub mod routes;
pub mod store;
