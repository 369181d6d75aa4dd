import { signLinkToken } from './tokens.ts';

/**
 * Open and click tracking for a rendered HTML body (docs/decisions/sending.md; never for HEADLESS mail, which
 * the caller sends as rendered). Pure: the caller persists `urls` (the hand-off statement, writeHandOffs) before the
 * message leaves, so the click redirect can resolve a token's index to a URL of this message
 * and nothing else (the redirect is not an open redirect).
 */
export type InstrumentOptions = {
  publicUrl: string;
  secret: string;
  projectId: string;
  emailId: string;
  contactId?: string;
  /** Add the open pixel (default true). */
  opens?: boolean;
  /** Rewrite links to the click redirect (default true). */
  clicks?: boolean;
};
export type Instrumented = { html: string; urls: string[] };

/** A hostile body cannot grow the stored URL list without bound; links past this stay as written. */
export const MAX_TRACKED_URLS = 1000;

/** Paths of our own links: never wrapped again (the unsubscribe link must work even if tracking breaks). */
const OWN_PATHS = ['/t/', '/u/', '/s/', '/m/'];
const LINK_TAGS = new Set(['a', 'area']);
const RAW_TEXT_TAGS = new Set(['script', 'style']);
const TAG_NAME = /[A-Za-z][^\s/>]*/y;
// One attribute: name, then optionally = and a double-quoted, single-quoted or unquoted value (HTML §13.2.5).
const ATTRIBUTE = /([^\s"'>/=][^\s"'>/=]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?/y;

type Attribute = { name: string; value: string | undefined; valueStart: number; valueEnd: number };
type Tag = { name: string; closing: boolean; end: number; attributes: Attribute[] };

export function trackingUrls(publicUrl: string) {
  return { open: `${publicUrl}/t/o/`, click: `${publicUrl}/t/c/` };
}

export function instrumentHtml(html: string, options: InstrumentOptions): Instrumented {
  const { publicUrl, secret, projectId, emailId } = options;
  const urls: string[] = [];
  const body = options.clicks === false ? html : rewriteLinks(html, options, urls);
  if (options.opens === false) return { html: body, urls };
  const pixel = `<img src="${trackingUrls(publicUrl).open}${signLinkToken(secret, { purpose: 'open', projectId, emailId })}" width="1" height="1" alt="" style="display:block;width:1px;height:1px;border:0;margin:0;padding:0" />`;
  const bodyEnd = body.toLowerCase().lastIndexOf('</body');
  return { html: bodyEnd === -1 ? body + pixel : body.slice(0, bodyEnd) + pixel + body.slice(bodyEnd), urls };
}

/** Every http(s) link of `html` wrapped in the click redirect; `urls` receives their targets by index. */
function rewriteLinks(html: string, options: InstrumentOptions, urls: string[]): string {
  const { publicUrl, secret, projectId, emailId } = options;
  const indexOf = new Map<string, number>();
  const out: string[] = [];
  let copied = 0;

  for (let at = html.indexOf('<'); at !== -1 && at < html.length; at = html.indexOf('<', at)) {
    if (html.startsWith('<!--', at)) {
      // Outlook's conditional comments hold markup it renders: scan inside them; skip other comments.
      if (html.startsWith('<!--[if', at)) at += 4;
      else at = endOf(html, '-->', at + 4);
      continue;
    }
    const tag = readTag(html, at);
    if (!tag) {
      at += 1;
      continue;
    }
    if (!tag.closing && RAW_TEXT_TAGS.has(tag.name)) {
      const close = html.toLowerCase().indexOf(`</${tag.name}`, tag.end);
      at = close === -1 ? html.length : close;
      continue;
    }
    const href = !tag.closing && LINK_TAGS.has(tag.name) ? tag.attributes.find((attribute) => attribute.name === 'href') : undefined;
    const target = href?.value === undefined ? null : trackableUrl(href.value, publicUrl);
    if (href && target) {
      let index = indexOf.get(target);
      if (index === undefined && urls.length < MAX_TRACKED_URLS) {
        index = urls.push(target) - 1;
        indexOf.set(target, index);
      }
      if (index !== undefined) {
        const token = signLinkToken(secret, { purpose: 'click', projectId, emailId, index });
        out.push(html.slice(copied, href.valueStart), `"${trackingUrls(publicUrl).click}${token}"`);
        copied = href.valueEnd;
      }
    }
    at = tag.end;
  }
  out.push(html.slice(copied));
  return out.join('');
}

/** The absolute http(s) URL a link points at, normalised for a Location header; null when it is not tracked. */
function trackableUrl(raw: string, publicUrl: string): string | null {
  const value = decodeEntities(raw).trim();
  if (!/^https?:\/\//i.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  const href = url.href;
  if (OWN_PATHS.some((path) => href.startsWith(publicUrl + path))) return null;
  return href;
}

function endOf(html: string, marker: string, from: number): number {
  const found = html.indexOf(marker, from);
  return found === -1 ? html.length : found + marker.length;
}

/** Reads the tag starting at `<` (attributes in any order and quoting); null when `<` starts no tag. */
function readTag(html: string, start: number): Tag | null {
  let at = start + 1;
  const closing = html[at] === '/';
  if (closing) at += 1;
  TAG_NAME.lastIndex = at;
  const name = TAG_NAME.exec(html);
  if (!name) {
    // `<!doctype …>`, `<![endif]-->` and other markup declarations: skip to their end.
    return html[at] === '!' || html[at] === '?' ? { name: '!', closing: false, end: endOf(html, '>', at), attributes: [] } : null;
  }
  at = TAG_NAME.lastIndex;
  const attributes: Attribute[] = [];
  while (at < html.length) {
    const char = html[at]!;
    if (char === '>') return { name: name[0].toLowerCase(), closing, end: at + 1, attributes };
    if (char === '/' || /\s/.test(char)) {
      at += 1;
      continue;
    }
    ATTRIBUTE.lastIndex = at;
    const match = ATTRIBUTE.exec(html);
    if (!match) {
      at += 1;
      continue;
    }
    const value = match[2] ?? match[3] ?? match[4];
    const valueLength = match[2] !== undefined || match[3] !== undefined ? value!.length + 2 : (value?.length ?? 0);
    const valueEnd = ATTRIBUTE.lastIndex;
    // The first occurrence of an attribute wins, as in browsers.
    const attributeName = match[1]!.toLowerCase();
    if (!attributes.some((attribute) => attribute.name === attributeName)) {
      attributes.push({ name: attributeName, value, valueStart: valueEnd - valueLength, valueEnd });
    }
    at = valueEnd;
  }
  return { name: name[0].toLowerCase(), closing, end: html.length, attributes };
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/**
 * Attribute values arrive HTML-encoded (`&amp;` in query strings): the redirect needs the real URL.
 * Only terminated references decode, so a bare `&lt=5` in a query string stays as written.
 */
function decodeEntities(value: string): string {
  return value.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? Number.parseInt(body.slice(2), 16) : Number.parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : entity;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
  });
}
