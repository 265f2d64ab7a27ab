//! A test clock announces nothing of its own: what happens on it (invoices, charges, the
//! cancellations of a deleted clock) is announced by the commands it runs, as it would be
//! on the real clock. It consumes nothing either; this room is kept so that every feature
//! has the same five.
