DROP TABLE event_subscriptions;
