import type { TemplateType } from './templates.schemas.ts';

/**
 * Checks of a rendered email before it is saved into a campaign or sent as a test
 * (docs/templates.md, Checks). Advice, not refusals: each says what and where, and the author
 * decides. Pure functions over the source and the rendered HTML and text.
 */
export type ContentCheck = { code: CheckCode; message: string; where: string };
export type CheckCode = 'IMAGE_WITHOUT_ALT' | 'LINK_NOT_HTTP' | 'HTML_CLIPPED' | 'NO_UNSUBSCRIBE_LINK' | 'NO_TEXT_PART';

/** Gmail clips a message whose HTML is larger than this (102 KB). */
export const CLIP_BYTES = 102 * 1024;

// The preview's inert stand-ins for the signed links (templates.preview.ts).
const PREVIEW_FRAGMENTS = new Set(['#unsubscribe', '#subscribe', '#manage']);
const OK_SCHEMES = /^(https?:|mailto:|tel:)/i;

const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match ? (match[1] ?? match[2] ?? match[3] ?? '') : undefined;
};
const decode = (value: string) =>
  value
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .trim();
const short = (value: string) => (value.length > 60 ? `${value.slice(0, 57)}…` : value);

export function checkContent(input: { source: string; html: string; text: string; type: TemplateType }): ContentCheck[] {
  const checks: ContentCheck[] = [];
  let image = 0;
  for (const [tag] of input.html.matchAll(/<img\b[^>]*>/gi)) {
    image += 1;
    const alt = attribute(tag, 'alt');
    if (!alt?.trim()) {
      const src = decode(attribute(tag, 'src') ?? '');
      checks.push({
        code: 'IMAGE_WITHOUT_ALT',
        message: 'An image has no alt text: readers with images off or a screen reader get nothing.',
        where: `image ${image}${src ? ` (${short(src)})` : ''}`,
      });
    }
  }
  let link = 0;
  for (const match of input.html.matchAll(/<a\b[^>]*>([\s\S]*?)<\/a>/gi)) {
    link += 1;
    const href = decode(attribute(match[0], 'href') ?? '');
    if (PREVIEW_FRAGMENTS.has(href) || OK_SCHEMES.test(href)) continue;
    const label = match[1]!
      .replace(/<[^>]*>/g, '')
      .replace(/\s+/g, ' ')
      .trim();
    checks.push({
      code: 'LINK_NOT_HTTP',
      message: href ? `A link goes to "${short(href)}", not an http(s) address.` : 'A link has no address.',
      where: `link ${link}${label ? ` ("${short(label)}")` : ''}`,
    });
  }
  const bytes = Buffer.byteLength(input.html, 'utf8');
  if (bytes > CLIP_BYTES) {
    checks.push({ code: 'HTML_CLIPPED', message: `The HTML is ${Math.round(bytes / 1024)} KB; Gmail clips messages over 102 KB.`, where: 'body' });
  }
  if (input.type === 'MARKETING' && !/\b(unsubscribeUrl|manageUrl)\b/.test(input.source)) {
    checks.push({ code: 'NO_UNSUBSCRIBE_LINK', message: 'Marketing mail needs a link to {{ unsubscribeUrl }} (or {{ manageUrl }}).', where: 'body' });
  }
  if (!input.text.trim()) {
    checks.push({ code: 'NO_TEXT_PART', message: 'The plain-text part would be empty: the email has no text, only images or markup.', where: 'body' });
  }
  return checks;
}

/**
 * The placeholders of a source that would render empty for these variables: `{{ x }}` outputs with
 * no `??` fallback and no `default` filter whose value is missing, null or ''. Names the template
 * binds itself (for, assign, capture) and the tags' logic are the author's and are not judged.
 */
export function emptyPlaceholders(source: string, variables: Record<string, unknown>): string[] {
  const empty = new Set<string>();
  const bound = new Set(['forloop', 'tablerowloop']);
  for (const [, name] of source.matchAll(/\{%-?\s*(?:for|assign|capture|tablerow|increment|decrement)\s+([A-Za-z_][\w-]*)/g)) bound.add(name!);
  for (const [, expression] of source.matchAll(/\{\{-?\s*([\s\S]*?)\s*-?\}\}/g)) {
    if (expression!.includes('??') || /\|\s*default\b/.test(expression!)) continue;
    const path = expression!.split('|')[0]!.trim();
    if (!/^[A-Za-z_][\w-]*(\.[A-Za-z_][\w-]*)*$/.test(path) || bound.has(path.split('.')[0]!)) continue;
    let value: unknown = variables;
    for (const key of path.split('.')) value = value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
    if (value === undefined || value === null || value === '') empty.add(path);
  }
  return [...empty];
}
