-- Fixed-window request counters shared by every node (the SDK and diff
-- routes allow 60 requests per minute per project).
CREATE TABLE rate_windows (
    bucket       TEXT NOT NULL,
    window_start BIGINT NOT NULL,
    count        BIGINT NOT NULL,
    PRIMARY KEY (bucket, window_start)
);
