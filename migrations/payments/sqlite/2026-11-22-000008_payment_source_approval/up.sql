-- A payment source that waits for the donor's approval (3-D Secure, a wallet's agreement)
-- shows where to send them, and where they return afterwards.
ALTER TABLE payment_sources ADD COLUMN action TEXT;
ALTER TABLE payment_sources ADD COLUMN return_url TEXT;
