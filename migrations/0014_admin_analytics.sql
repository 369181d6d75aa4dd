-- Analytics rollups, billing limits, reputation state, the audit log and account e-mail tokens
-- (issue 7; docs/decisions/analytics.md, billing.md, reputation.md, administration.md).

-- How far the rollup job has counted the events table. One row per rollup ('events'); not
-- project-scoped: the job counts every project in one pass (a reference table under Citus).
CREATE TABLE rollup_watermarks (
  name text PRIMARY KEY,
  -- Every event created before this instant is counted; '-infinity' makes the next run backfill.
  watermark timestamptz NOT NULL
);
INSERT INTO rollup_watermarks (name, watermark) VALUES ('events', '-infinity');

-- Events per name per 15-minute bucket (UTC). Fifteen minutes, not an hour, so that days and hours
-- of every time zone (offsets such as +05:30 and +05:45 included) are whole sums of buckets.
CREATE TABLE event_counts (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  bucket timestamptz NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (project_id, name, bucket)
);
CREATE INDEX event_counts_project_bucket_idx ON event_counts (project_id, bucket);

-- Events per name over the project's whole life: the first page's `total` of GET /activity and
-- all-time figures without summing every bucket.
CREATE TABLE event_totals (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  name text NOT NULL,
  count bigint NOT NULL,
  PRIMARY KEY (project_id, name)
);

-- Email lifecycle metrics per campaign per 15-minute bucket, from the email.* service events.
-- campaign_id is the nil UUID for mail no campaign sent (transactional and workflow mail).
CREATE TABLE email_counts (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  campaign_id uuid NOT NULL,
  bucket timestamptz NOT NULL,
  -- Messages that reached the receiving side: accepted (email.sent) or refused there (hard bounce
  -- at SMTP time). The denominator of the bounce rate.
  attempted bigint NOT NULL DEFAULT 0,
  sent bigint NOT NULL DEFAULT 0,
  delivered bigint NOT NULL DEFAULT 0,
  opened bigint NOT NULL DEFAULT 0,
  unique_opened bigint NOT NULL DEFAULT 0,
  clicked bigint NOT NULL DEFAULT 0,
  unique_clicked bigint NOT NULL DEFAULT 0,
  bounced bigint NOT NULL DEFAULT 0,
  soft_bounced bigint NOT NULL DEFAULT 0,
  complained bigint NOT NULL DEFAULT 0,
  failed bigint NOT NULL DEFAULT 0,
  suppressed bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (project_id, campaign_id, bucket)
);
CREATE INDEX email_counts_project_bucket_idx ON email_counts (project_id, bucket);

-- Per-category monthly caps set by the project (null: unlimited).
CREATE TABLE billing_limits (
  project_id uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  transactional bigint CHECK (transactional >= 0),
  campaigns bigint CHECK (campaigns >= 0),
  workflows bigint CHECK (workflows >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Records counted against a capped category this month. Only kept while a cap is set: the row is
-- seeded from the emails table when first needed and then incremented by every send in the same
-- transaction that creates the records, so concurrent sends cannot both take the last unit.
CREATE TABLE billing_usage (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  month date NOT NULL,
  category text NOT NULL CHECK (category IN ('TRANSACTIONAL', 'CAMPAIGN', 'WORKFLOW')),
  used bigint NOT NULL,
  PRIMARY KEY (project_id, month, category)
);

-- Reputation state of a project (bounce and complaint rates are read from email_counts).
CREATE TABLE project_reputation (
  project_id uuid PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
  -- Set when the service disabled the project for its rates; cleared when it is re-enabled.
  disabled_at timestamptz,
  -- When an OWNER last re-enabled it: sends before this no longer count towards disabling it again.
  reviewed_at timestamptz
);

-- Administrative actions (keys rotated, members changed, reset, project disabled …).
CREATE TABLE audit_log (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  -- NULL when the service itself acted (automatic disabling). No foreign key: the entry outlives
  -- the account, and actor_email keeps who it was.
  actor_id uuid,
  actor_email text,
  action text NOT NULL,
  details jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id)
);
CREATE INDEX audit_log_project_created_idx ON audit_log (project_id, created_at DESC, id DESC);

-- E-mail verification and password reset tokens. The token mailed to the user is an HMAC over
-- (id, purpose, expiry) with the server secret, so this table holds nothing that can be replayed;
-- used_at makes each token single-use.
CREATE TABLE auth_tokens (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose text NOT NULL CHECK (purpose IN ('verify-email', 'reset-password')),
  -- The address the token was mailed to: verification proves this address, not a later one.
  email text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX auth_tokens_user_idx ON auth_tokens (user_id, purpose, created_at);
