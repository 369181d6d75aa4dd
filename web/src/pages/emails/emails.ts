import { api, call } from '../../api/client.ts';
import type { Tone } from '../../ui/StatusBadge.tsx';

export const fetchEmail = (id: string) => call(api.GET('/emails/{id}', { params: { path: { id } } }));
export const fetchEmailContent = (id: string) => call(api.GET('/emails/{id}/content', { params: { path: { id } } }));
export type Email = Awaited<ReturnType<typeof fetchEmail>>;
export type EmailContent = Awaited<ReturnType<typeof fetchEmailContent>>;

/** The badge tone of each record status. */
export const STATUS_TONE: Record<Email['status'], Tone> = {
  QUEUED: 'neutral',
  SENDING: 'info',
  SENT: 'info',
  DELIVERED: 'good',
  OPENED: 'good',
  CLICKED: 'good',
  BOUNCED: 'bad',
  COMPLAINED: 'bad',
  FAILED: 'bad',
  SUPPRESSED: 'warn',
};

/** Statuses after which a record no longer changes on its own (opens and clicks aside). */
export const FINAL_STATUSES = new Set<Email['status']>(['DELIVERED', 'OPENED', 'CLICKED', 'BOUNCED', 'COMPLAINED', 'FAILED', 'SUPPRESSED']);

/** `Name <address>`, or the address alone. */
export const mailbox = (address: { email: string; name: string | null }) => (address.name ? `${address.name} <${address.email}>` : address.email);
