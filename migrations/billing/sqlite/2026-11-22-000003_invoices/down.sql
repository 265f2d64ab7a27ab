DROP TABLE charge_attempts;
DROP TABLE invoices;
