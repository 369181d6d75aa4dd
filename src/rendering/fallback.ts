/**
 * `{{ name ?? "friend" }}` (docs/decisions/templates.md). Liquid has no `??`, so before parsing each `??` outside a
 * string literal is rewritten to `| fallback:`, a filter that yields its argument when the value is
 * missing, null or an empty string. `a ?? b ?? "c"` becomes `a | fallback: b | fallback: "c"`, and
 * filters written after the fallback apply to the result. Rewritten: output tags `{{ … }}` and the
 * markup of `{% assign %}` and `{% echo %}`. Untouched: `{% raw %}` and `{% comment %}` bodies, text.
 *
 * The rewrite records where it lengthened the source so that parse errors still point at the line
 * and column the author wrote.
 */
export const FALLBACK_FILTER = 'fallback';
const REPLACEMENT = `| ${FALLBACK_FILTER}:`;

/** A place where the rewritten text grew: `delta` characters were added at `rewrittenOffset`. */
type Shift = { rewrittenOffset: number; delta: number };

export type Rewritten = { source: string; shifts: Shift[] };

export function isMissing(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}

const TAG_START = /\{%-?\s*([A-Za-z_]\w*)/y;
const BLOCK_ENDS: Record<string, RegExp> = { raw: /\{%-?\s*endraw\s*-?%\}/g, comment: /\{%-?\s*endcomment\s*-?%\}/g };
const EXPRESSION_TAGS = new Set(['assign', 'echo']);

export function rewriteFallbacks(source: string): Rewritten {
  if (!source.includes('??')) return { source, shifts: [] };
  const shifts: Shift[] = [];
  let out = '';
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{', i);
    if (open < 0 || open + 1 >= source.length) break;
    out += source.slice(i, open);
    const next = source[open + 1];
    if (next === '{') {
      const end = scanMarkup(source, open + 2, '}}', (piece) => emit(piece), true);
      i = end;
      continue;
    }
    if (next === '%') {
      TAG_START.lastIndex = open;
      const name = TAG_START.exec(source)?.[1];
      const blockEnd = name ? BLOCK_ENDS[name] : undefined;
      if (blockEnd) {
        blockEnd.lastIndex = open + 2;
        const match = blockEnd.exec(source);
        const end = match ? match.index + match[0].length : source.length;
        out += source.slice(open, end);
        i = end;
        continue;
      }
      i = scanMarkup(source, open + 2, '%}', (piece) => emit(piece), name !== undefined && EXPRESSION_TAGS.has(name));
      continue;
    }
    out += '{';
    i = open + 1;
  }
  out += source.slice(i);
  return { source: out, shifts };

  function emit(piece: string) {
    if (piece === '??') {
      shifts.push({ rewrittenOffset: out.length, delta: REPLACEMENT.length - 2 });
      out += REPLACEMENT;
    } else out += piece;
  }

  /**
   * Copies the markup from its opening delimiter to its closing one, skipping quoted strings; when
   * `rewrite` is set, each `??` outside quotes is handed to `write` on its own. Returns the offset
   * after the closing delimiter (or the end: the parser reports the unclosed tag).
   */
  function scanMarkup(text: string, from: number, close: string, write: (piece: string) => void, rewrite: boolean): number {
    write(text.slice(from - 2, from));
    let j = from;
    let start = from;
    while (j < text.length) {
      const c = text[j];
      if (c === '"' || c === "'") {
        const closing = text.indexOf(c, j + 1);
        j = closing < 0 ? text.length : closing + 1;
        continue;
      }
      if (text.startsWith(close, j)) {
        write(text.slice(start, j + close.length));
        return j + close.length;
      }
      if (rewrite && c === '?' && text[j + 1] === '?') {
        write(text.slice(start, j));
        write('??');
        j += 2;
        start = j;
        continue;
      }
      j++;
    }
    write(text.slice(start));
    return text.length;
  }
}

/** Maps a 1-based (line, column) in the rewritten source back to the author's source. */
export function originalPosition(rewritten: Rewritten, line: number, column: number): { line: number; column: number } {
  if (rewritten.shifts.length === 0) return { line, column };
  let lineStart = 0;
  for (let n = 1; n < line; n++) {
    const newline = rewritten.source.indexOf('\n', lineStart);
    if (newline < 0) break;
    lineStart = newline + 1;
  }
  const offset = lineStart + column - 1;
  // The rewrite adds no newlines, so only shifts earlier on the same line move the column.
  let delta = 0;
  for (const shift of rewritten.shifts) {
    if (shift.rewrittenOffset < lineStart || shift.rewrittenOffset >= offset) continue;
    delta += Math.min(shift.delta, offset - shift.rewrittenOffset);
  }
  return { line, column: column - delta };
}
