import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { badRequest } from './errors.ts';

/** the API reference (Conventions): the default page size (`limit`, `pageSize`), and the largest (larger is clamped, not refused). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/** The `page` and `pageSize` query fields every offset-paginated list shares. */
export const offsetPageFields = {
  page: z.coerce.number().int().min(1).max(1_000_000).optional(),
  pageSize: z.coerce.number().int().min(1).optional().describe(`default ${DEFAULT_PAGE_SIZE}; values above ${MAX_PAGE_SIZE} are clamped`),
};

/** The `sort` and `dir` query fields of lists sorted by name, creation or update time. */
export const sortFields = {
  sort: z.string().optional().describe('name, createdAt (default; unknown values fall back to it) or updatedAt'),
  dir: z.string().optional().describe('asc or desc (default; unknown values fall back to it)'),
};

/** the API reference (Conventions): an offset-paginated list's answer, `{ data, page, pageSize, total, totalPages }`. */
export const offsetPage = <T extends z.ZodType>(item: T) =>
  z.object({
    data: z.array(item),
    page: z.number().int(),
    pageSize: z.number().int(),
    total: z.number().int(),
    totalPages: z.number().int(),
  });

/**
 * Opaque keyset cursors (the API reference (Conventions): cursor pagination) for GET /contacts and GET /events.
 * A cursor is base64url JSON of the last row's sort key, signed with the server secret, so a
 * garbage or tampered cursor is a 400 and never reaches SQL. Timestamps travel as text with
 * microseconds (a JS Date would drop them and repeat or skip rows that share a millisecond).
 */
export type CursorPosition = { sort: string; dir: 'asc' | 'desc'; value: string; id: string };
/** What decodeCursor expects; `checkId` for listings whose tie-breaker is not a UUID (default: a UUID). */
export type CursorExpectation = { sort: string; dir: 'asc' | 'desc'; checkValue: (value: string) => boolean; checkId?: (id: string) => boolean };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The SQL expression giving a timestamptz as the text a cursor carries: UTC, microseconds. */
export const cursorTimestampSql = (column: string) => `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const CURSOR_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export const isCursorTimestamp = (value: string) => CURSOR_TIMESTAMP.test(value) && !Number.isNaN(Date.parse(value));

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(`cursor:${body}`).digest().subarray(0, 16);

export function encodeCursor(secret: string, position: CursorPosition): string {
  const body = Buffer.from(JSON.stringify([position.sort, position.dir, position.value, position.id])).toString('base64url');
  return `${body}.${sign(secret, body).toString('base64url')}`;
}

/**
 * Reads a cursor made by encodeCursor for the same sort and direction; anything else is a 400.
 * `checkValue` validates the sort value's format (a timestamp, an email).
 */
export function decodeCursor(secret: string, cursor: string, expected: CursorExpectation): CursorPosition {
  const invalid = () =>
    badRequest('The cursor is not valid for this listing.', { suggestion: 'Pass the cursor from the previous response unchanged, with the same sort and dir.' });
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined) throw invalid();
  const given = Buffer.from(signature, 'base64url');
  const wanted = sign(secret, body);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== 4 || !parsed.every((part) => typeof part === 'string')) throw invalid();
  const [sort, dir, value, id] = parsed as string[];
  const checkId = expected.checkId ?? ((candidate: string) => UUID.test(candidate));
  if (sort !== expected.sort || dir !== expected.dir || !checkId(id) || !expected.checkValue(value)) throw invalid();
  return { sort, dir, value, id };
}

export type Page<T> = { data: T[]; cursor: string | null; hasMore: boolean; total: number };

/**
 * A cursor page from the rows a listing fetched past its cursor, `limit + 1` of them (the extra row
 * only says that more follow): the first `limit` rows mapped, the cursor at the last of them when
 * more follow, and `total` counted only for the first page (`total` undefined on later pages, which
 * answer 0: counting again on every page would cost a count per request).
 */
export async function pageOf<Row extends { sort_key: string }, Item>(
  secret: string,
  rows: Row[],
  page: {
    limit: number;
    /** The listing's cursor name and direction, as decodeCursor expects them back. */
    at: { sort: string; dir: 'asc' | 'desc' };
    map: (row: Row) => Item;
    /** The first page's total (given that page's rows); undefined on later pages. */
    total: ((rows: Row[]) => Promise<number>) | undefined;
    /** The row's tie-breaker in the cursor; default its `id`. */
    idOf?: (row: Row) => string;
  },
): Promise<Page<Item>> {
  const hasMore = rows.length > page.limit;
  const kept = rows.slice(0, page.limit);
  const last = kept.at(-1);
  const idOf = page.idOf ?? ((row: Row) => (row as Row & { id: string }).id);
  const total = page.total ? await page.total(kept) : 0;
  return {
    data: kept.map(page.map),
    cursor: hasMore && last ? encodeCursor(secret, { sort: page.at.sort, dir: page.at.dir, value: last.sort_key, id: idOf(last) }) : null,
    hasMore,
    total,
  };
}
