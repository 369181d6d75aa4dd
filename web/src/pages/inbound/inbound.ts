import { api, call } from '../../api/client.ts';

export const fetchInboundMessage = (id: string) => call(api.GET('/inbound/{id}', { params: { path: { id } } }));
export type InboundMessage = Awaited<ReturnType<typeof fetchInboundMessage>>;

/** "2 attachments", "1 attachment", or nothing. */
export const attachmentCount = (attachments: unknown[]) => (attachments.length ? `${attachments.length} attachment${attachments.length === 1 ? '' : 's'}` : '');

/** A size in bytes, in the unit a reader expects. */
export function byteSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
