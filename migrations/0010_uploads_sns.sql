-- Uploaded images and processed SNS notifications (api.md uploads; contract §6 "POST /webhooks/ses";
-- docs/decisions/uploads-and-ses.md).

-- An image from POST /uploads/image, served publicly at GET /uploads/<id>.<ext>. The bytes live in
-- the database so every API process (several may share one PostgreSQL) can serve them.
CREATE TABLE uploads (
  -- The public URL carries only the id (no project), so the id alone is the key.
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  -- Decided from the content's magic bytes: png, jpg, gif or webp.
  ext text NOT NULL CHECK (ext IN ('png', 'jpg', 'gif', 'webp')),
  content_type text NOT NULL,
  size int NOT NULL,
  content bytea NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX uploads_project_created_idx ON uploads (project_id, created_at DESC);

-- SNS MessageIds already acted on: SNS delivers at least once, so a redelivered notification is
-- recognised here and changes nothing. Infrastructure, not tenant data: no project_id. Rows older
-- than the retention in webhooks.queries.ts are pruned.
CREATE TABLE sns_messages (
  message_id text PRIMARY KEY,
  received_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sns_messages_received_idx ON sns_messages (received_at);
