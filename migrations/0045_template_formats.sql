-- Template formats (docs/templates.md): a template, and a campaign's own content, is written as
-- HTML (`html`, the default), MJML (`mjml`) or in the visual editor (`visual`, whose output is
-- MJML). `source` is the text the author edits (NULL for `html`: the body is its source);
-- `editor_state` is the visual editor's own opaque state. `body` stays the HTML that is sent,
-- rendered from `source` on every save, so delivery never runs MJML per recipient.

ALTER TABLE templates
  ADD COLUMN format text NOT NULL DEFAULT 'html' CHECK (format IN ('html', 'mjml', 'visual')),
  ADD COLUMN source text,
  ADD COLUMN editor_state jsonb;

ALTER TABLE campaigns
  ADD COLUMN format text NOT NULL DEFAULT 'html' CHECK (format IN ('html', 'mjml', 'visual')),
  ADD COLUMN source text,
  ADD COLUMN editor_state jsonb;
