DROP INDEX webhook_endpoints_partner_idx;
ALTER TABLE webhook_endpoints DROP COLUMN partner_uuid;
