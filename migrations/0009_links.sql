-- The tracked URLs of each instrumented message (contract §6; docs/decisions/links.md). A click
-- token names (email, index); the redirect answers only with `urls ->> index` of that email, so it
-- can never be pointed at a URL the message did not contain.

CREATE TABLE email_links (
  project_id uuid NOT NULL,
  email_id uuid NOT NULL,
  -- JSON array of absolute http(s) URLs, in order of first appearance in the HTML.
  urls jsonb NOT NULL,
  PRIMARY KEY (project_id, email_id),
  FOREIGN KEY (project_id, email_id) REFERENCES emails (project_id, id) ON DELETE CASCADE
);
