import type mjml2html from 'mjml';
import { AppError } from '../errors.ts';

let loaded: Promise<typeof mjml2html> | undefined;
/** MJML and what it brings (juice, cheerio) cost about a second of CPU to load: on the first MJML template, not at start-up. */
const loadMjml = () => (loaded ??= import('mjml').then((module) => module.default));

/**
 * MJML → responsive HTML, run once when a template or a campaign's content is saved or previewed,
 * never per recipient (docs/templates.md). Liquid placeholders pass through untouched and are
 * rendered per recipient afterwards. `mj-include` is ignored: a template must not read the
 * server's files. Any MJML error, including a warning of the validator (an unknown element, an
 * illegal attribute), is the author's to fix: 400 TEMPLATE_SYNTAX_ERROR with its line, like
 * Liquid's.
 */
export async function mjmlToHtml(source: string, field = 'source'): Promise<string> {
  const compile = await loadMjml();
  let result: Awaited<ReturnType<typeof mjml2html>>;
  try {
    result = await compile(source, { validationLevel: 'soft', ignoreIncludes: true });
  } catch (error) {
    throw new AppError('TEMPLATE_SYNTAX_ERROR', {
      message: `MJML in ${field} could not be parsed: ${(error as Error).message}`,
      details: { field },
    });
  }
  const first = result.errors[0];
  if (first) {
    // The formatted message names the server's working directory: only the plain one is answered.
    throw new AppError('TEMPLATE_SYNTAX_ERROR', {
      message: `MJML error in ${field} at line ${first.line} (${first.tagName}): ${first.message}`,
      details: { field, line: first.line, column: 1, errors: result.errors.map(({ line, message, tagName }) => ({ line, tagName, message })) },
    });
  }
  return result.html;
}
