DROP TABLE provider_notifications;
