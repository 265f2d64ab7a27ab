-- Announcing charges ahead (docs/billing.md, "Notifications"). The plan's days ahead are
-- kept in a column of their own so the scheduler can ask which subscriptions are near
-- their charge date in one query; upcoming_announced is the charge date last announced,
-- so each is announced once.
ALTER TABLE subscription_plans ADD COLUMN notify_before_charge_days INTEGER;
UPDATE subscription_plans
   SET notify_before_charge_days = json_extract(notification_configuration, '$.notify_before_charge_days');
ALTER TABLE subscriptions ADD COLUMN upcoming_announced BIGINT;
-- The scheduler finds a notifying plan's subscriptions by plan.
CREATE INDEX subscriptions_plan_idx ON subscriptions (plan_uuid, next_due_date);
