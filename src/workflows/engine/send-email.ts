import { assertBillingAllows } from '../../billing/billing.guard.ts';
import { assertSenderAllowed } from '../../domains/domains.service.ts';
import { storedContent } from '../../emails/email-content.ts';
import { buildEmailRecord } from '../../emails/email-record.ts';
import { findSuppressed } from '../../emails/emails.queries.ts';
import type { SendEmailConfig } from '../step-configs.ts';
import { workflowVariables } from './run-context.ts';
import type { StepEnv } from './step-env.ts';

/**
 * SEND_EMAIL through the sending pipeline (docs/decisions/sending.md, docs/decisions/workflows.md), inside the step's transaction: the
 * template rendered for the contact with the workflow's variables, one email record (sourceType
 * WORKFLOW) written by the transaction's end (writeEmailRecords: one insert and one delivery run for all
 * its emails), so it exists exactly when the step commits. Suppressed addresses, and
 * unsubscribed contacts for MARKETING templates, get a SUPPRESSED record and email.suppressed, as
 * /v1/send does. A missing template, an unverified sender or a render error fails the step.
 */
export async function sendEmail(env: StepEnv, config: SendEmailConfig): Promise<{ emailId: string; to: string; status: 'QUEUED' | 'SUPPRESSED' }> {
  const { deps, tx, run, exec, graph } = env;
  const projectId = exec.project_id;
  const template = await run.template(tx, projectId, config.templateId);
  const content = storedContent(template, { lowerCaseSender: true });
  const from = content.from.email;
  const key = await run.signingKey(tx, projectId, from);
  if (!key) {
    await assertSenderAllowed(tx, projectId, from); // throws the 403 that names the domain
    throw new Error(`No signing key for ${from}.`);
  }
  const to = config.to ?? exec.contact_email;
  const suppressed = to === exec.contact_email ? exec.contact_suppressed : (await findSuppressed(tx, projectId, [to])).has(to);
  const { rendered: _, ...made } = buildEmailRecord(deps.config, {
    projectId,
    domainName: key.domainName,
    content,
    source: { type: 'WORKFLOW', templateId: template.id, workflowId: graph.id },
    to: { address: to, name: null },
    contactId: exec.contact_id,
    renderFor: { id: exec.contact_id, email: exec.contact_email, data: exec.contact_data },
    variables: workflowVariables(exec, graph),
    suppressed,
    subscribed: exec.contact_subscribed,
  });
  if (made.record.status === 'QUEUED') await assertBillingAllows(tx, projectId, 'WORKFLOW', 1, env.effects.caps);
  env.effects.emails.push(made);
  return { emailId: made.record.id, to, status: made.record.status };
}
