import { compile, type HtmlToTextOptions } from 'html-to-text';
import { LIMITS } from './engine.ts';

/**
 * The text/plain alternative, generated from the rendered HTML (docs/decisions/sending.md). Links stay as
 * `text [url]` (the URL alone when it is the text), images are dropped (their alt text is noise
 * next to the sentence they illustrate), and lines are not hard-wrapped: quoted-printable keeps
 * the wire lines short and clients wrap to their own width (docs/decisions/templates.md).
 */
const OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  selectors: [
    { selector: 'img', format: 'skip' },
    { selector: 'a', options: { hideLinkHrefIfSameAsText: true, linkBrackets: ['[', ']'] } },
    // Email layouts are tables: read their cells as blocks rather than glue them together.
    { selector: 'td', format: 'block' },
    { selector: 'th', format: 'block' },
  ],
  limits: { maxInputLength: LIMITS.htmlChars, maxDepth: 200, ellipsis: '...' },
};

const convert = compile(OPTIONS);

export function htmlToText(html: string): string {
  return convert(html).trim();
}
