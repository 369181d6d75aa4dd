-- Campaigns (api.md Campaign, Campaigns; contract §9; docs/decisions/campaigns.md).

CREATE TABLE campaigns (
  project_id uuid NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  name text NOT NULL,
  description text,
  -- Liquid sources, rendered per recipient at delivery (src/delivery/deferred-content.ts).
  subject text NOT NULL,
  body text NOT NULL,
  from_email text NOT NULL,
  from_name text,
  reply_to text,
  -- The content type (MARKETING adds List-Unsubscribe and sends only to subscribed contacts;
  -- TRANSACTIONAL ignores `subscribed`; HEADLESS is sent untracked). Distinct from audience_type.
  type text NOT NULL DEFAULT 'MARKETING' CHECK (type IN ('TRANSACTIONAL', 'MARKETING', 'HEADLESS')),
  -- The template the content was copied from, if any (GET /templates/{id}/usage lists it).
  template_id uuid,
  audience_type text NOT NULL CHECK (audience_type IN ('ALL', 'SEGMENT', 'FILTERED')),
  -- Condition tree (contract §4) when audience_type is FILTERED.
  audience_condition jsonb,
  -- When audience_type is SEGMENT. No foreign key: a segment may be deleted once no DRAFT,
  -- SCHEDULED or SENDING campaign uses it (contract §10), and a SENT campaign keeps the id.
  segment_id uuid,
  status text NOT NULL DEFAULT 'DRAFT' CHECK (status IN ('DRAFT', 'SCHEDULED', 'SENDING', 'SENT', 'CANCELLED')),
  scheduled_for timestamptz,
  -- When sending began (contract §9).
  sent_at timestamptz,
  -- When the audience's email records were made (the one INSERT … SELECT); NULL while SENDING
  -- means the start job has not run yet, so the campaign cannot be SENT.
  audience_fixed_at timestamptz,
  -- The audience's size: counted on every write while DRAFT or SCHEDULED, the number of
  -- records made once sending began.
  total_recipients int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (project_id, id),
  FOREIGN KEY (project_id, template_id) REFERENCES templates (project_id, id) ON DELETE SET NULL (template_id)
);
CREATE INDEX campaigns_project_created_idx ON campaigns (project_id, created_at DESC, id DESC);
CREATE INDEX campaigns_project_template_idx ON campaigns (project_id, template_id) WHERE template_id IS NOT NULL;
CREATE INDEX campaigns_project_segment_idx ON campaigns (project_id, segment_id) WHERE segment_id IS NOT NULL;
-- The scheduler and the progress job look across projects for the few campaigns in flight.
CREATE INDEX campaigns_in_flight_idx ON campaigns (status, scheduled_for) WHERE status IN ('SCHEDULED', 'SENDING');

-- No contact ever gets a campaign twice (contract §9), even if the start job runs again after a
-- crash: the audience INSERT … SELECT skips contacts that already have a record.
CREATE UNIQUE INDEX emails_campaign_contact_key ON emails (project_id, campaign_id, contact_id) WHERE campaign_id IS NOT NULL;
