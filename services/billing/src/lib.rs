//! The billing service: subscription plans, subscriptions, invoices, charge attempts and
//! dunning, on a schedule computed in each subscription's own time zone (docs/billing.md).

pub mod schedule;
