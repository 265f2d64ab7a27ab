DROP TABLE partner_integrations_made;
DROP TABLE onboarding_processes;
DROP TABLE onboarding_configurations;
