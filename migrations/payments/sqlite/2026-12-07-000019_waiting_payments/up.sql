-- Payments that wait for their donor at a provider outside the process (3-D Secure on the
-- payment page), by when their call began, which is when they began to wait (a change of
-- their custom parameters moves `updated`, never this): the settler gives up on those that
-- waited longer than payments.donor_wait_ms (docs/payments.md, "The payment page"). Few
-- rows, so the settler's look is cheap however many payments there are.
CREATE INDEX payments_waiting_idx ON payments (charge_started)
    WHERE status = 'pending' AND charge_state = 'done' AND action IS NOT NULL
        AND payment_provider <> 'coffer_test';
