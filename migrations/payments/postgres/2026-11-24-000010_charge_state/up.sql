-- A charge is recorded before the provider is asked and settled after: `charge_state` is
-- `reserved` (recorded, not yet sent: billing's charge attempts), `calling` (sent, or about
-- to be; the outcome is not known) or `done`. A payment or refund found `calling` after a
-- crash is settled by asking the provider about its key, never by charging again.
ALTER TABLE payments ADD COLUMN charge_state TEXT NOT NULL DEFAULT 'done';
ALTER TABLE payments ADD COLUMN charge_started BIGINT;
-- The stored source a payment charges again (billing's charge attempts), so that the
-- charge can be sent after the transaction that records it.
ALTER TABLE payments ADD COLUMN payment_source_uuid TEXT;
CREATE INDEX payments_charge_state_idx ON payments (charge_state, charge_started)
    WHERE charge_state <> 'done';
ALTER TABLE refunds ADD COLUMN charge_state TEXT NOT NULL DEFAULT 'done';
ALTER TABLE refunds ADD COLUMN charge_started BIGINT;
ALTER TABLE refunds ADD COLUMN status_reason TEXT;
CREATE INDEX refunds_charge_state_idx ON refunds (charge_state, charge_started)
    WHERE charge_state <> 'done';
-- Coffer's test provider keeps what it was asked, by idempotency key, as a real provider
-- does on its side: a key asked again answers as before and charges nothing more.
CREATE TABLE test_psp_ledger (
    idempotency_key TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    outcome TEXT NOT NULL,
    requests BIGINT NOT NULL,
    created BIGINT NOT NULL
);
