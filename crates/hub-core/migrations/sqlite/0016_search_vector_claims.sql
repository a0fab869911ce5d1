-- Which node encodes a document's search sections now (issue 29), so
-- that nodes sharing a database encode a new document once: a node that
-- finds another's unexpired claim waits for the vectors that node keeps
-- in docs_search_vectors, and takes the claim over once it has expired
-- (its holder stopped). A claim is deleted when its vectors are kept,
-- and by the blob collector with its document.
CREATE TABLE docs_search_claims (
    spec_sha256 TEXT NOT NULL,
    model       TEXT NOT NULL,
    holder      TEXT NOT NULL,
    expires_at  BIGINT NOT NULL,
    PRIMARY KEY (spec_sha256, model)
);
