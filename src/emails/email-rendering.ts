import type { Config } from '../config.ts';
import type { Deps } from '../deps.ts';
import { AppError } from '../errors.ts';
import { recipientLinks } from '../links/outgoing.ts';
import { LruCache } from '../rendering/lru.ts';
import { type Recipient, type RenderedEmail, recipientVariables, render, type TemplateVariables } from '../rendering/render.ts';
import { campaignContents, contactsByIds, type RecipientContact } from './email-rendering.queries.ts';
import type { ContentType, EmailRow } from './emails.queries.ts';

/**
 * The two renderings of an email record (docs/decisions/sending.md): at send, for the records a
 * request makes one by one (email-record.ts), and at delivery, for a campaign's records, which its
 * set-based insert leaves without content (fillDeferredContent). Both render one recipient the
 * same way: its data, its links (none without a contact), the reserved variables.
 */
export type RenderInput = {
  projectId: string;
  emailId: string;
  contentType: ContentType;
  content: { subject: string; html: string };
  recipient: Recipient;
  /** The contact whose links the message carries; null: none. */
  linksOf: string | null;
  /** Extra template variables (a workflow's `event` and `workflow`). */
  variables?: TemplateVariables;
};

/** One record's rendering for its recipient; a template error is the AppError render throws. */
export function renderEmail(config: Config, input: RenderInput): RenderedEmail {
  const links = recipientLinks({ config, projectId: input.projectId, emailId: input.emailId, contactId: input.linksOf, contentType: input.contentType });
  return render(input.content, recipientVariables(input.recipient, links, input.variables));
}

type CampaignContent = { subject: string; body: string };

/**
 * A campaign's content never changes once it sends (PUT is refused from SENDING on, docs/decisions/campaigns.md),
 * so it is loaded once per campaign and kept: the same string objects every render, which lets the
 * renderer's compiled-template cache answer by identity. Bounded by count and source size.
 */
const campaigns = new LruCache<string, CampaignContent>(200, 20_000_000);

// The body is never stored (the subject is, once rendered), so a record retried after a
// transient failure is rendered again.
const isDeferred = (row: EmailRow) => row.campaign_id !== null && row.html === null;

/**
 * Rendering at delivery. Records made without content are rendered here, just before they are built. /v1/send renders
 * every record in the request, but a campaign makes its audience's records with one set-based
 * INSERT … SELECT (docs/decisions/campaigns.md) and leaves `subject`, `html` and `text_body` NULL: they are filled
 * per recipient at delivery, from the campaign and the contact as they are then.
 *
 * Fills the content of the rows that lack it, in place: per project of the chunk, one query for
 * its campaigns not yet cached and one for its contacts. A row it cannot fill (its campaign is
 * gone, or the template fails to render for this contact) is left without content; build() fails
 * that record alone with "the record has no rendered content". Database errors propagate: the
 * chunk's records stay claimed and are retried when their lease ends. The rendered subject is
 * written back to the record by the hand-off statement (markHandedOff), so GET /emails/{id} shows
 * what each recipient got without a statement of its own.
 */
export async function fillDeferredContent(deps: Deps, rows: EmailRow[]): Promise<void> {
  const byProject = new Map<string, EmailRow[]>();
  for (const row of rows) if (isDeferred(row)) byProject.set(row.project_id, [...(byProject.get(row.project_id) ?? []), row]);
  if (byProject.size === 0) return;
  for (const [projectId, deferred] of byProject) {
    const contents = await loadCampaigns(deps, projectId, deferred);
    const contactIds = [...new Set(deferred.map((row) => row.contact_id).filter((id): id is string => id !== null))];
    const contacts = new Map((await contactsByIds(deps.db, projectId, contactIds)).map((contact) => [contact.id, contact]));
    for (const row of deferred) {
      const content = contents.get(row.campaign_id!);
      if (content) renderInto(deps, row, content, row.contact_id ? contacts.get(row.contact_id) : undefined);
    }
  }
}

async function loadCampaigns(deps: Deps, projectId: string, rows: EmailRow[]): Promise<Map<string, CampaignContent>> {
  const found = new Map<string, CampaignContent>();
  const missing: string[] = [];
  for (const id of new Set(rows.map((row) => row.campaign_id!))) {
    const cached = campaigns.get(`${projectId}:${id}`);
    if (cached) found.set(id, cached);
    else missing.push(id);
  }
  for (const row of await campaignContents(deps.db, projectId, missing)) {
    const content = { subject: row.subject, body: row.body };
    campaigns.set(`${projectId}:${row.id}`, content, row.subject.length + row.body.length);
    found.set(row.id, content);
  }
  return found;
}

/** Renders one record as /v1/send does: the contact's data, its links, the reserved variables. */
function renderInto(deps: Deps, row: EmailRow, content: CampaignContent, contact: RecipientContact | undefined): void {
  // A contact deleted since the audience was fixed: the address is still on the record.
  const recipient = contact ?? { id: row.contact_id ?? '', email: row.to_address, data: {} };
  try {
    const rendered = renderEmail(deps.config, {
      projectId: row.project_id,
      emailId: row.id,
      contentType: row.content_type,
      content: { subject: content.subject, html: content.body },
      recipient,
      linksOf: contact ? contact.id : null,
    });
    row.subject = rendered.subject;
    row.html = rendered.html;
    row.text_body = rendered.text;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    deps.log.warn({ emailId: row.id, campaignId: row.campaign_id, err: error }, 'campaign content could not be rendered for this recipient');
  }
}
