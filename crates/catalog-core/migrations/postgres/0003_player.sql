-- The player: devices (programs that play a user's audio and speak the
-- device protocol) and one playback state per user. The state is a JSON
-- document with a version: every command is a read-modify-write guarded by
-- the version (UPDATE ... WHERE version = $seen), so concurrent commands on
-- any node serialise, and devices long-poll for a version newer than the
-- one they last applied.

CREATE TABLE devices (
    id              TEXT PRIMARY KEY,
    user_id         TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name            TEXT NOT NULL,
    device_type     TEXT NOT NULL,
    volume_percent  BIGINT NOT NULL,
    supports_volume BOOLEAN NOT NULL,
    last_seen       BIGINT NOT NULL,
    created_at      BIGINT NOT NULL
);
CREATE INDEX devices_user ON devices(user_id, last_seen);

CREATE TABLE playback (
    user_id     TEXT PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
    state       TEXT NOT NULL,
    version     BIGINT NOT NULL,
    updated_at  BIGINT NOT NULL
);

-- Server-wide secrets created on first use (the key that signs stream links),
-- shared by every node of one store.
CREATE TABLE secrets (
    name    TEXT PRIMARY KEY,
    value   TEXT NOT NULL
);
