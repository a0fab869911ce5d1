-- Hosted docs: theme tokens and docs customization (one row per project),
-- per-endpoint markdown keyed by version label and endpoint, and the full
-- text index behind docs search (filled from the parsed document when a
-- version's docs are first searched).
CREATE TABLE docs_settings (
    project_id    TEXT PRIMARY KEY REFERENCES projects(id) ON DELETE CASCADE,
    theme         TEXT,
    customization TEXT,
    updated_at    INTEGER NOT NULL
);

CREATE TABLE docs_endpoint_markdown (
    project_id    TEXT NOT NULL REFERENCES projects(id) ON DELETE CASCADE,
    version_label TEXT NOT NULL,
    endpoint      TEXT NOT NULL,
    intro         TEXT,
    extras        TEXT,
    updated_at    INTEGER NOT NULL,
    PRIMARY KEY (project_id, version_label, endpoint)
);

-- Search: one row per section (operation, schema, type) of a document, by
-- the document's content hash, so versions sharing a document share rows.
CREATE TABLE docs_search_documents (
    spec_sha256 TEXT PRIMARY KEY,
    indexed_at  INTEGER NOT NULL
);
CREATE VIRTUAL TABLE docs_search USING fts5(
    spec_sha256 UNINDEXED,
    target UNINDEXED,
    title,
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- When the account last dropped from a paid plan to Free (NULL while paid):
-- its docs customizations are retained 14 days from then, then pruned.
ALTER TABLE users ADD COLUMN downgraded_at INTEGER;

-- Custom domains are served only once verified (docs/docs-pages.md says how);
-- changing the domain clears it.
ALTER TABLE projects ADD COLUMN custom_domain_verified_at INTEGER;
