-- The partner whose token made an endpoint, if one did: when the partner's integration
-- with the organisation is disabled, its endpoints are turned off with it, so its access
-- ends for deliveries as it does for API calls (docs/partners.md).
ALTER TABLE webhook_endpoints ADD COLUMN partner_uuid TEXT;
CREATE INDEX webhook_endpoints_partner_idx ON webhook_endpoints (partner_uuid, organisation_uuid);
