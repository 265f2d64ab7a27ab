//! A plan announces nothing (the catalogue has no plan events) and consumes nothing: a
//! change of plan reaches others through the subscriptions and invoices it governs. This
//! room is kept so that every feature has the same five.
