import type { Config } from '../config.ts';
import { composeMessage, dkimSign } from '../delivery/mime.ts';
import { receiverHeaders } from '../delivery/receiver-headers.ts';
import { type Outcome, transportFor } from '../delivery/transport.ts';
import type { SystemSender } from '../deps.ts';
import type { TokenPurpose } from './account-tokens.ts';

const escapeHtml = (text: string) => text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** Subject and body of each mail; the link goes to the dashboard page that posts the token. */
function content(config: Config, purpose: TokenPurpose, token: string) {
  const page = purpose === 'verify-email' ? 'verify-email' : 'reset-password';
  const link = `${config.publicUrl}/${page}?token=${encodeURIComponent(token)}`;
  const [subject, intro, action, endpoint, outro] =
    purpose === 'verify-email'
      ? [
          'Confirm your email address',
          'Confirm that this address belongs to your Mailroom account.',
          'Confirm my address',
          'POST /auth/verify-email',
          'The link works for 48 hours.',
        ]
      : [
          'Reset your password',
          'Someone (hopefully you) asked to reset the password of your Mailroom account.',
          'Choose a new password',
          'POST /auth/reset-password',
          'The link works once, for one hour. If you did not ask for it, ignore this email.',
        ];
  const text = `${intro}\n\n${action}: ${link}\n\nOr send this token to ${endpoint}:\n${token}\n\n${outro}\n`;
  const html = `<p>${escapeHtml(intro)}</p><p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p><p>Or send this token to <code>${endpoint}</code>:<br><code>${escapeHtml(token)}</code></p><p>${escapeHtml(outro)}</p>`;
  return { subject, text, html };
}

/** Sends one account mail (verification, password reset). */
export async function sendAccountMail(config: Config, sender: SystemSender, mail: { id: string; to: string; purpose: TokenPurpose; token: string }): Promise<Outcome> {
  return sendSystemMail(config, sender, { id: mail.id, to: mail.to, ...content(config, mail.purpose, mail.token) });
}

/**
 * Sends one mail of the server's own (account mail, notices to a project's owners) through the
 * configured transport (SMTP_URL, or the outbox), from the system sender and signed with its
 * domain's key (docs/decisions/sending.md: unsigned only without SYSTEM_FROM). `id` makes the Message-ID.
 */
export async function sendSystemMail(config: Config, sender: SystemSender, mail: { id: string; to: string; subject: string; text: string; html: string }): Promise<Outcome> {
  const from = sender.address;
  const composed = await composeMessage({
    messageId: `<${mail.id}@${from.split('@')[1]}>`,
    from: { address: from, name: sender.name },
    to: { address: mail.to, name: null },
    replyTo: null,
    subject: mail.subject,
    html: mail.html,
    text: mail.text,
    // docs/streams.md: system mail is transactional and machine-sent.
    headers: receiverHeaders({ stream: 'transactional', projectId: 'system', campaignId: null, automatic: true, from }),
    attachments: [],
  });
  const raw = sender.key ? await dkimSign(composed, sender.key) : composed;
  const transport = transportFor(config);
  try {
    return await transport.deliver({ id: mail.id, from, to: mail.to, raw });
  } finally {
    transport.close();
  }
}
