-- A sentence model's vectors of a document's search sections (issue 29),
-- kept so that a restart, or another node, does not encode the document
-- again: one row per document and model, the model named with a
-- fingerprint of its weights and the sections' texts named by their
-- SHA-256, so vectors of another model or of other texts are never read.
-- `vectors` is each section's i8 codes, then each section's f32 scale
-- (hub_core::search::semantic::Meanings::to_bytes). The blob collector
-- deletes a document's rows with its blob.
CREATE TABLE docs_search_vectors (
    spec_sha256  TEXT NOT NULL,
    model        TEXT NOT NULL,
    texts_sha256 TEXT NOT NULL,
    sections     BIGINT NOT NULL,
    width        BIGINT NOT NULL,
    vectors      BYTEA NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (spec_sha256, model)
);
