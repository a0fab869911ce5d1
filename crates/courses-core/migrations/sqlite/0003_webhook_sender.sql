-- The webhook sender's bookkeeping: when a message is next due, what the
-- receiver last answered, and when it was delivered.
ALTER TABLE webhook_deliveries ADD COLUMN next_attempt_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN last_attempt_at INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN response_status INTEGER;
ALTER TABLE webhook_deliveries ADD COLUMN last_error TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN delivered_at INTEGER;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
