-- The docs assistant: quotas counted per account on a ledger every node
-- shares (chat tokens per UTC day, AI searches per UTC month), and the
-- last messages of each chat conversation.
CREATE TABLE usage_ledger (
    account_user_id TEXT NOT NULL,
    meter           TEXT NOT NULL,
    window_start    BIGINT NOT NULL,
    amount          BIGINT NOT NULL,
    PRIMARY KEY (account_user_id, meter, window_start)
);

CREATE TABLE chat_conversations (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    messages   TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX chat_conversations_updated ON chat_conversations (updated_at);
