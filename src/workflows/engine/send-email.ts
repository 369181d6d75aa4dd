import { randomUUID } from 'node:crypto';
import { assertBillingAllows } from '../../billing/billing.guard.ts';
import { recipientLinks } from '../../delivery/seams.ts';
import { assertSenderAllowed } from '../../domains/domains.service.ts';
import { findSuppressed, insertEmails } from '../../emails/emails.queries.ts';
import { recordEvents } from '../../events/events.service.ts';
import { recipientVariables, render } from '../../rendering/render.ts';
import { SUPPRESSION_REASONS } from '../../send/send.service.ts';
import type { SendEmailConfig } from '../step-configs.ts';
import { workflowVariables } from './run-context.ts';
import type { StepEnv } from './steps.ts';

/**
 * SEND_EMAIL through the sending pipeline (contract §6, §11), inside the step's transaction: the
 * template rendered for the contact with the workflow's variables, one email record (sourceType
 * WORKFLOW), and a delivery run queued by the transaction (once for all its emails), exactly when
 * the step commits. Suppressed addresses, and
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
  const suppressed = await findSuppressed(tx, projectId, [to]);
  const id = randomUUID();
  const links = recipientLinks({ config: deps.config, projectId, emailId: id, contactId: exec.contact_id, contentType: template.type });
  const variables = recipientVariables({ id: exec.contact_id, email: exec.contact_email, data: exec.contact_data }, links, workflowVariables(exec, graph));
  const rendered = render({ subject: template.subject, html: template.body }, variables);
  const reason = suppressed.has(to) ? 'suppressed' : template.type === 'MARKETING' && !exec.contact_subscribed ? 'unsubscribed' : null;
  if (!reason) await assertBillingAllows(tx, projectId, 'WORKFLOW', 1);
  await insertEmails(tx, projectId, [
    {
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
  ]);
  if (reason) {
    const data = { emailId: id, reason, templateId: template.id, workflowId: graph.id };
    await recordEvents(tx, deps.queue, projectId, [{ contactId: exec.contact_id, name: 'email.suppressed', emailId: id, data }]);
  } else {
    env.effects.delivery = true;
  }
  return { emailId: id, to, status: reason ? 'SUPPRESSED' : 'QUEUED' };
}
