-- The per-project MCP token (its SHA-256; the plaintext is shown once on
-- rotation). A private project's MCP server answers only to it or to a
-- member's personal access token.
ALTER TABLE projects ADD COLUMN mcp_token_hash TEXT;
CREATE UNIQUE INDEX projects_mcp_token_hash ON projects (mcp_token_hash);
