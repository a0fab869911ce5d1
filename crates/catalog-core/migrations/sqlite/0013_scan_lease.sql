-- One scan from the administration page at a time across every node that
-- shares the store. The single row is both the lease (a node claims it
-- while no scan runs or the holder's lease has lapsed, and renews it while
-- it scans) and the progress every node's page reads.
CREATE TABLE scan_runs (
    id          INTEGER PRIMARY KEY CHECK (id = 1),
    node        TEXT NOT NULL,
    dir         TEXT NOT NULL,
    started_at  INTEGER NOT NULL,
    lease_until INTEGER NOT NULL,
    finished    INTEGER NOT NULL DEFAULT 0,
    error       TEXT,
    progress    TEXT NOT NULL
);
