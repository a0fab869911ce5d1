-- Search sections as plain rows: each node builds a document's index in
-- memory on its first search of it (hub_core::search::DocumentIndex), so
-- the full-text index is no longer read. The rows are a cache rebuilt on
-- the next search of each document.
DROP TABLE docs_search;
CREATE TABLE docs_search (
    spec_sha256 TEXT NOT NULL,
    position    INTEGER NOT NULL,
    target      TEXT NOT NULL,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    title_terms TEXT NOT NULL,
    terms       TEXT NOT NULL,
    PRIMARY KEY (spec_sha256, position)
);
DELETE FROM docs_search_documents;
