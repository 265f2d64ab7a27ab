DROP TABLE partner_integrations;
