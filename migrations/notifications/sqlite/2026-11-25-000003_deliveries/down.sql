ALTER TABLE webhook_endpoints DROP COLUMN failing_since;
DROP TABLE webhook_responses;
DROP TABLE delivery_tasks;
