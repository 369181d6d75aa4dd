/**
 * The one database interface every capability uses. Two adapters implement it (PGlite for the
 * embedded default, `pg` for PostgreSQL); SQL is plain PostgreSQL that runs on both.
 *
 * Conventions that keep both drivers identical:
 * - int8 and numeric come back as JS numbers (normalised in the adapters).
 * - jsonb parameters are passed as JSON strings with an explicit `::jsonb` cast: `pg` would turn a
 *   JS array into a PostgreSQL array literal.
 * - Inside `transaction`, use only the handle passed to the callback: PGlite has one connection and
 *   the global handle would wait for the transaction to end (a deadlock).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export type Row = Record<string, unknown>;

/**
 * Set while an HTTP request is served (app.ts): on PostgreSQL its statements run on the API pool,
 * whose connections carry a statement_timeout, so no request holds a connection for long. Background
 * work (jobs, sending) runs outside it, without that limit.
 */
export const requestScope = new AsyncLocalStorage<true>();

export interface Queryable {
  query<T = Row>(text: string, params?: readonly unknown[]): Promise<T[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(text: string): Promise<void>;
  /**
   * COPY … FROM of `rows` into `table (columns)`: PostgreSQL's text format, one row a line,
   * tab-separated, `\N` for NULL, backslashes doubled (see copyText). The two adapters and their
   * transaction handles have it; a Queryable made elsewhere may not.
   */
  copyFrom?(table: string, columns: readonly string[], rows: string): Promise<void>;
}

const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };

/** A value as a field of COPY's text format: backslash, tab, newline and carriage return escaped. */
export function copyText(value: string): string {
  return /[\\\t\n\r]/.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => COPY_ESCAPES[c]!) : value;
}

export type DbKind = 'pglite' | 'postgres';

export interface Db extends Queryable {
  readonly kind: DbKind;
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** Convenience for statements that return at most one row. */
export async function queryOne<T = Row>(db: Queryable, text: string, params?: readonly unknown[]): Promise<T | undefined> {
  const rows = await db.query<T>(text, params);
  return rows[0];
}

export function toNumber(value: string | null): number | null {
  return value === null ? null : Number(value);
}
