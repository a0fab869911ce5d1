-- Search that understands API descriptions (hub_core::search): beside the
-- shown title and body, each section is indexed under normalised words
-- (identifiers split, English stems, an operation's intent). The index is a
-- cache rebuilt on the next search of each document.
DROP TABLE docs_search;
CREATE VIRTUAL TABLE docs_search USING fts5(
    spec_sha256 UNINDEXED,
    target UNINDEXED,
    title UNINDEXED,
    body,
    title_terms,
    terms,
    tokenize = 'unicode61 remove_diacritics 2'
);
DELETE FROM docs_search_documents;
