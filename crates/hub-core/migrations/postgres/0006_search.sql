-- Search that understands API descriptions (hub_core::search): beside the
-- shown title and body, each section is indexed under normalised words
-- (identifiers split, English stems, an operation's intent). The index is a
-- cache rebuilt on the next search of each document.
DROP TABLE docs_search;
CREATE TABLE docs_search (
    spec_sha256 TEXT NOT NULL,
    target      TEXT NOT NULL,
    title       TEXT NOT NULL,
    body        TEXT NOT NULL,
    title_terms TEXT NOT NULL,
    terms       TEXT NOT NULL,
    document    tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('simple', title_terms), 'A') || setweight(to_tsvector('simple', terms), 'B')
    ) STORED
);
CREATE INDEX docs_search_sha ON docs_search (spec_sha256);
CREATE INDEX docs_search_document ON docs_search USING GIN (document);
DELETE FROM docs_search_documents;
