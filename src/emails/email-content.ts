import type { ContentType } from './emails.queries.ts';

/** What an email record is made of: subject and body sources, sender, reply address, content type. */
export type EmailContent = {
  subject: string;
  html: string;
  from: { email: string; name: string | null };
  replyTo: string | null;
  contentType: ContentType;
};

/** The fields of a template (or of a campaign) that content is made of (the API reference, Template). */
export type ContentSource = { subject: string; body: string; from: string; fromName: string | null; replyTo: string | null; type: ContentType };

/**
 * What a request writes itself; `undefined` takes the source's. `fromName` and `replyTo` may be
 * null, which clears the source's.
 */
export type ContentOverrides = {
  subject?: string;
  html?: string;
  fromEmail?: string;
  fromName?: string | null;
  replyTo?: string | null;
  contentType?: ContentType;
};

export type ContentOptions = {
  /** The content type when neither the request nor the source gives one. */
  defaultType?: ContentType;
  /** The source's sender lower-cased, as /v1/send and workflows send it (docs/decisions/sending.md). */
  lowerCaseSender?: boolean;
};

/**
 * The one mapping template → message content (docs/templates.md), for every path that makes an
 * email: /v1/send, campaigns, workflows, test copies. Each field is the request's, else the
 * source's; subject, html and sender stay undefined where neither gives them, for the caller to
 * refuse in its own words.
 */
export function contentOf(
  source: ContentSource | undefined,
  overrides: ContentOverrides = {},
  options: ContentOptions = {},
): Partial<EmailContent> & Pick<EmailContent, 'replyTo' | 'contentType'> {
  const sourceSender = source && (options.lowerCaseSender ? source.from.toLowerCase() : source.from);
  const fromEmail = overrides.fromEmail ?? sourceSender;
  const fromName = overrides.fromName !== undefined ? overrides.fromName : (source?.fromName ?? null);
  return {
    subject: overrides.subject ?? source?.subject,
    html: overrides.html ?? source?.body,
    from: fromEmail === undefined ? undefined : { email: fromEmail, name: fromName },
    replyTo: overrides.replyTo !== undefined ? overrides.replyTo : (source?.replyTo ?? null),
    contentType: overrides.contentType ?? source?.type ?? options.defaultType ?? 'TRANSACTIONAL',
  };
}

/** contentOf a stored template or campaign, which holds every field. */
export function storedContent(source: ContentSource, options: ContentOptions = {}): EmailContent {
  return contentOf(source, {}, options) as EmailContent;
}
