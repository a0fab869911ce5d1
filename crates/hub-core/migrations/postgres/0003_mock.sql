-- The mock server: per-project settings, overrides (at most 50 per project,
-- enforced here), sequential example counters and the request log.
CREATE TABLE mock_settings (
    project_id TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    settings   TEXT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE mock_overrides (
    id         TEXT PRIMARY KEY,
    project_id TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    seq        BIGINT NOT NULL,
    spec       TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX mock_overrides_project ON mock_overrides (project_id, seq);

-- The cap holds on any number of nodes: the trigger locks the project row,
-- so concurrent inserts for one project count one after the other.
CREATE FUNCTION mock_overrides_cap() RETURNS trigger AS $$
BEGIN
    PERFORM 1 FROM projects WHERE id = NEW.project_id FOR UPDATE;
    IF (SELECT COUNT(*) FROM mock_overrides WHERE project_id = NEW.project_id) >= 50 THEN
        RAISE EXCEPTION 'mock_override_limit' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER mock_overrides_cap BEFORE INSERT ON mock_overrides
FOR EACH ROW EXECUTE FUNCTION mock_overrides_cap();

CREATE TABLE mock_sequences (
    project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_label TEXT NOT NULL,
    method        TEXT NOT NULL,
    path          TEXT NOT NULL,
    counter       BIGINT NOT NULL,
    PRIMARY KEY (project_id, version_label, method, path)
);

CREATE TABLE mock_request_log (
    id          BIGSERIAL PRIMARY KEY,
    project_id  TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    at          BIGINT NOT NULL,
    method      TEXT NOT NULL,
    path        TEXT NOT NULL,
    query       TEXT NOT NULL,
    status      INTEGER NOT NULL,
    synth       TEXT NOT NULL,
    override_id TEXT,
    version     TEXT NOT NULL,
    duration_us BIGINT NOT NULL,
    client_ip   TEXT NOT NULL
);
CREATE INDEX mock_request_log_project ON mock_request_log (project_id, id);
CREATE INDEX mock_request_log_at ON mock_request_log (at);
