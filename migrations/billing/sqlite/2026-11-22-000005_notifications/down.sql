DROP INDEX subscriptions_plan_idx;
ALTER TABLE subscriptions DROP COLUMN upcoming_announced;
ALTER TABLE subscription_plans DROP COLUMN notify_before_charge_days;
