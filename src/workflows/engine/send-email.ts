import { randomUUID } from 'node:crypto';
import { assertBillingAllows } from '../../billing/billing.guard.ts';
import { recipientLinks } from '../../delivery/seams.ts';
import { assertSenderAllowed } from '../../domains/domains.service.ts';
import { findSuppressed, insertEmails, type NewEmail } from '../../emails/emails.queries.ts';
import type { Queryable } from '../../db/index.ts';
import { type EventInput, recordEvents } from '../../events/events.service.ts';
import { recipientVariables, render } from '../../rendering/render.ts';
import { SUPPRESSION_REASONS } from '../../send/send.service.ts';
import type { SendEmailConfig } from '../step-configs.ts';
import { workflowVariables } from './run-context.ts';
import type { StepEnv } from './steps.ts';

/** An email record a step made, written with the others of its transaction. */
export type PendingEmail = { projectId: string; record: NewEmail; event: EventInput | null };

/**
 * SEND_EMAIL through the sending pipeline (contract §6, §11), inside the step's transaction: the
 * template rendered for the contact with the workflow's variables, one email record (sourceType
 * WORKFLOW) written by the transaction's end (writeEmails: one insert and one delivery run for all
 * its emails), so it exists exactly when the step commits. Suppressed addresses, and
 * unsubscribed contacts for MARKETING templates, get a SUPPRESSED record and email.suppressed, as
 * /v1/send does. A missing template, an unverified sender or a render error fails the step.
 */
export async function sendEmail(env: StepEnv, config: SendEmailConfig): Promise<{ emailId: string; to: string; status: 'QUEUED' | 'SUPPRESSED' }> {
  const { deps, tx, run, exec, graph } = env;
  const projectId = exec.project_id;
  const template = await run.template(tx, projectId, config.templateId);
  const from = template.from.toLowerCase();
  const key = await run.signingKey(tx, projectId, from);
  if (!key) {
    await assertSenderAllowed(tx, projectId, from); // throws the 403 that names the domain
    throw new Error(`No signing key for ${from}.`);
  }
  const to = config.to ?? exec.contact_email;
  const suppressed = to === exec.contact_email ? exec.contact_suppressed : (await findSuppressed(tx, projectId, [to])).has(to);
  const id = randomUUID();
  const links = recipientLinks({ config: deps.config, projectId, emailId: id, contactId: exec.contact_id, contentType: template.type });
  const variables = recipientVariables({ id: exec.contact_id, email: exec.contact_email, data: exec.contact_data }, links, workflowVariables(exec, graph));
  const rendered = render({ subject: template.subject, html: template.body }, variables);
  const reason = suppressed ? 'suppressed' : template.type === 'MARKETING' && !exec.contact_subscribed ? 'unsubscribed' : null;
  if (!reason) await assertBillingAllows(tx, projectId, 'WORKFLOW', 1);
  env.effects.emails.push({
    projectId,
    record: {
      id,
      contact_id: exec.contact_id,
      to_address: to,
      to_name: null,
      from_address: from,
      from_name: template.fromName,
      reply_to: template.replyTo,
      subject: rendered.subject,
      html: rendered.html,
      text_body: rendered.text,
      headers: {},
      status: reason ? 'SUPPRESSED' : 'QUEUED',
      source_type: 'WORKFLOW',
      campaign_id: null,
      template_id: template.id,
      workflow_id: graph.id,
      content_type: template.type,
      message_id: `<${id}@${key.domainName}>`,
      last_error: reason && SUPPRESSION_REASONS[reason],
    },
    event: reason ? { contactId: exec.contact_id, name: 'email.suppressed', emailId: id, data: { emailId: id, reason, templateId: template.id, workflowId: graph.id } } : null,
  });
  return { emailId: id, to, status: reason ? 'SUPPRESSED' : 'QUEUED' };
}

/** Writes the email records of a transaction's SEND_EMAIL steps: per project one insert and the email.suppressed events. */
export async function writeEmails(tx: Queryable, emails: PendingEmail[]): Promise<void> {
  const byProject = new Map<string, PendingEmail[]>();
  for (const email of emails) byProject.set(email.projectId, [...(byProject.get(email.projectId) ?? []), email]);
  for (const [projectId, pending] of byProject) {
    await insertEmails(tx, projectId, pending.map((p) => p.record));
    const events = pending.flatMap((p) => (p.event ? [p.event] : []));
    await recordEvents(tx, projectId, events);
  }
}
