DROP TABLE refunds;
