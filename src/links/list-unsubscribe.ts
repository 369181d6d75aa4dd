import { signLinkToken } from './tokens.ts';

export type LinkUrlsInput = { publicUrl: string; secret: string; projectId: string; contactId: string; emailId?: string | null };
export type LinkUrls = { unsubscribeUrl: string; subscribeUrl: string; manageUrl: string };

/**
 * The contact's signed subscription links: the `unsubscribeUrl`, `subscribeUrl` and `manageUrl`
 * template variables (docs/decisions/templates.md). With `emailId`, the links remember the message they came in,
 * and the subscription event names it.
 */
export function linkUrls(input: LinkUrlsInput): LinkUrls {
  const { unsubscribeUrl, subscribeUrl, manageUrl } = lazyLinkUrls(input);
  return { unsubscribeUrl, subscribeUrl, manageUrl };
}

/**
 * linkUrls, each URL signed when first read: rendering asks for all three, and most templates use
 * one or none (each is an HMAC on the request path of /v1/send).
 */
export function lazyLinkUrls(input: LinkUrlsInput): LinkUrls {
  const signed: Partial<LinkUrls> = {};
  const { publicUrl, secret, projectId, contactId } = input;
  const emailId = input.emailId ?? undefined;
  const url = (name: keyof LinkUrls, path: string, purpose: 'unsubscribe' | 'subscribe' | 'manage') =>
    (signed[name] ??= `${publicUrl}/${path}/${signLinkToken(secret, { purpose, projectId, contactId, emailId })}`);
  return {
    get unsubscribeUrl() {
      return url('unsubscribeUrl', 'u', 'unsubscribe');
    },
    get subscribeUrl() {
      return url('subscribeUrl', 's', 'subscribe');
    },
    get manageUrl() {
      return url('manageUrl', 'm', 'manage');
    },
  };
}

/**
 * RFC 2369 and RFC 8058 headers for MARKETING mail (docs/decisions/sending.md): mail clients show an unsubscribe
 * button that POSTs `List-Unsubscribe=One-Click` to the URL, which unsubscribes with no other step.
 */
export function listUnsubscribeHeaders(unsubscribeUrl: string): { 'List-Unsubscribe': string; 'List-Unsubscribe-Post': string } {
  return { 'List-Unsubscribe': `<${unsubscribeUrl}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' };
}
