-- Garbage collection of blobs no version references (issue 32). A blob
-- seen unreferenced is noted here with the time; it is deleted only after a
-- grace period, by the node holding this row's lock, and only if still
-- unreferenced then. A push deletes the row of the blob it references in
-- the transaction that writes the version, so the two never cross.
CREATE TABLE blob_gc (
    sha256 TEXT PRIMARY KEY,
    unreferenced_since BIGINT NOT NULL
);
