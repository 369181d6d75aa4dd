import { parse } from 'csv-parse';
import type { Deps } from '../deps.ts';
import { recordEvents, subscriptionEventName } from '../events/events.service.ts';
import { addProgress, finishJob, insertJob, type JobProblem, startJob } from './contact-bulk.queries.ts';
import { forgetStats } from './contact-fields.queries.ts';
import { findImportFile, type ImportRow, insertImportFile, setJobTotal, upsertContacts } from './contact-import.queries.ts';
import { type ColumnPlan, planColumns, toImportRow } from './contact-import.schemas.ts';

export const IMPORT_JOB = 'contacts.import';
export type ImportJobData = { projectId: string; jobId: string };

/** the API reference (Limits): CSV import, 5 MB. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
/**
 * Rows per set-based upsert and per progress update: a batch costs three statements whatever its
 * size, so the 5 MB file's 78,021 rows are 16 transactions (docs/decisions/contact-fields-bulk-import.md).
 */
export const IMPORT_BATCH_ROWS = 5_000;

type ImportDeps = Pick<Deps, 'db' | 'queue'>;

/**
 * Queues an import: the job row, the uploaded bytes (in the database, so a worker on any machine
 * can read them) and the pg-boss job commit together.
 */
export async function queueImport(deps: ImportDeps, projectId: string, content: Buffer) {
  const jobId = await deps.db.transaction(async (tx) => {
    const id = await insertJob(tx, projectId, 'import', null, 0);
    await insertImportFile(tx, projectId, id, content);
    await deps.queue.send<ImportJobData>(IMPORT_JOB, { projectId, jobId: id }, { tx });
    return id;
  });
  return { jobId };
}

type ParsedRecord = { row: number; fields: string[] } | { row: number; parseError: string };

/**
 * Parses the whole file once (at most 5 MB): fed in 64 KB chunks, one per turn of the event loop
 * so requests keep being served, and read on the parser's `readable` events (reading record by
 * record through an async iterator cost three times the parse itself). `row` is the record's
 * number, the header being 1: records are counted here, as the parser's `info` option would (blank
 * lines skipped, a multi-line cell one record), which cost more than the parse itself.
 */
async function parseCsv(content: Buffer): Promise<ParsedRecord[]> {
  const records: ParsedRecord[] = [];
  const parser = parse({ bom: true, trim: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true });
  const read = () => {
    for (let fields: string[] | null = parser.read(); fields !== null; fields = parser.read()) records.push({ row: records.length + 1, fields });
  };
  const ended = new Promise<void>((resolve) => {
    parser.on('readable', read);
    // Only a quote left open at the end of the file gets here (relax_quotes tolerates the rest).
    parser.on('error', (error) => {
      read();
      records.push({ row: records.length + 1, parseError: `Malformed CSV: ${error.message}` });
      resolve();
    });
    parser.on('end', resolve);
  });
  for (let offset = 0; offset < content.length && !parser.destroyed; offset += 64 * 1024) {
    parser.write(content.subarray(offset, offset + 64 * 1024));
    read();
    await new Promise((resolve) => setImmediate(resolve));
  }
  if (!parser.destroyed) parser.end();
  await ended;
  return records;
}

/** A batch of data rows read from the file, waiting to be written. */
class Batch {
  rows = new Map<string, ImportRow>();
  processed = 0;
  succeeded = 0;
  errors: JobProblem[] = [];

  add(row: ImportRow) {
    this.processed++;
    this.succeeded++;
    // The same email twice in one batch: later cells win, as they would across batches.
    const earlier = this.rows.get(row.email);
    this.rows.set(row.email, earlier ? { email: row.email, subscribed: row.subscribed ?? earlier.subscribed, data: { ...earlier.data, ...row.data } } : row);
  }

  reject(problem: JobProblem) {
    this.processed++;
    this.errors.push(problem);
  }
}

/**
 * Writes one batch and its progress in one transaction: a worker that dies mid-import leaves the
 * job's `processed` exactly at the last committed batch, and the retry resumes after it.
 */
async function writeBatch(deps: ImportDeps, data: ImportJobData, batch: Batch) {
  if (batch.processed === 0) return;
  await deps.db.transaction(async (tx) => {
    const rows = [...batch.rows.values()];
    const upserted = rows.length ? await upsertContacts(tx, data.projectId, rows) : [];
    const flipped = upserted.filter((contact) => contact.was !== null && contact.was !== contact.subscribed);
    await recordEvents(
      tx,
      data.projectId,
      flipped.map((contact) => ({ contactId: contact.id, name: subscriptionEventName(contact.subscribed) })),
    );
    await addProgress(tx, data.projectId, data.jobId, { processed: batch.processed, succeeded: batch.succeeded, failed: batch.errors.length, errors: batch.errors });
  });
}

/** Works one import job (docs/decisions/contacts-and-events.md CSV rules); resumable after a crash, see writeBatch. */
export async function runImportJob(deps: ImportDeps, data: ImportJobData) {
  const { projectId, jobId } = data;
  const job = await startJob(deps.db, projectId, jobId);
  if (!job) return;
  const content = await findImportFile(deps.db, projectId, jobId);
  if (!content) return finishJob(deps.db, projectId, jobId, { status: 'failed', error: 'The uploaded file is no longer stored.' });

  const records = await parseCsv(content);
  if (records.length === 0) return failHeader(deps, data, 'The file is empty: a header row with an email column is required.');
  await setJobTotal(deps.db, projectId, jobId, records.length - 1);

  let plan: ColumnPlan | undefined;
  let batch = new Batch();
  for (const record of records) {
    if (!plan) {
      if ('parseError' in record) return failHeader(deps, data, record.parseError);
      const planned = planColumns(record.fields);
      if (typeof planned === 'string') return failHeader(deps, data, planned);
      plan = planned;
      continue;
    }
    // Rows before this index were written by an earlier attempt (header = row 1, data from row 2).
    if (record.row - 2 < job.processed) continue;
    if ('parseError' in record) batch.reject({ row: record.row, message: record.parseError });
    else {
      const row = toImportRow(record.fields, plan);
      if (typeof row === 'string') batch.reject({ row: record.row, message: row });
      else batch.add(row);
    }
    if (batch.processed >= IMPORT_BATCH_ROWS) {
      await writeBatch(deps, data, batch);
      batch = new Batch();
    }
  }
  await writeBatch(deps, data, batch);
  // New columns show in GET /contacts/fields as soon as the job reports completed: the cached stats
  // are forgotten, and the next listing counts afresh (docs/decisions/contact-fields-bulk-import.md).
  await forgetStats(deps.db, projectId);
  await finishJob(deps.db, projectId, jobId, { status: 'completed' });
}

function failHeader(deps: ImportDeps, { projectId, jobId }: ImportJobData, message: string) {
  return finishJob(deps.db, projectId, jobId, { status: 'failed', error: message, errors: [{ row: 1, message }] });
}
