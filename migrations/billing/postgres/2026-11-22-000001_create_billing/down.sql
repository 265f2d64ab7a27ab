DROP TABLE subscription_plans;
