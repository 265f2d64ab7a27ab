DROP TRIGGER payments_counted_insert ON payments;
DROP TRIGGER payments_counted_update ON payments;
DROP FUNCTION payment_counts_inserted();
DROP FUNCTION payment_counts_updated();

CREATE FUNCTION payment_count_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        INSERT INTO payment_count_changes
            (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
        VALUES (OLD.organisation_uuid, OLD.account_uuid, OLD.test_mode, OLD.status,
            OLD.payment_method, OLD.currency, -1);
    END IF;
    INSERT INTO payment_count_changes
        (organisation_uuid, account_uuid, test_mode, status, payment_method, currency, n)
    VALUES (NEW.organisation_uuid, NEW.account_uuid, NEW.test_mode, NEW.status,
        NEW.payment_method, NEW.currency, 1);
    RETURN NULL;
END
$$;

CREATE TRIGGER payments_counted_insert AFTER INSERT ON payments
    FOR EACH ROW EXECUTE FUNCTION payment_count_change();
CREATE TRIGGER payments_counted_update AFTER UPDATE ON payments
    FOR EACH ROW
    WHEN (OLD.status IS DISTINCT FROM NEW.status
        OR OLD.organisation_uuid IS DISTINCT FROM NEW.organisation_uuid
        OR OLD.account_uuid IS DISTINCT FROM NEW.account_uuid
        OR OLD.test_mode IS DISTINCT FROM NEW.test_mode
        OR OLD.payment_method IS DISTINCT FROM NEW.payment_method
        OR OLD.currency IS DISTINCT FROM NEW.currency)
    EXECUTE FUNCTION payment_count_change();
