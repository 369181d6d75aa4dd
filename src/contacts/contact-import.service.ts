import { Readable } from 'node:stream';
import { type Info, parse } from 'csv-parse';
import type { Deps } from '../deps.ts';
import { recordEvents, subscriptionEventName } from '../events/events.service.ts';
import { addProgress, finishJob, insertJob, type JobProblem, startJob } from './contact-bulk.queries.ts';
import { computeFieldStats } from './contact-fields.service.ts';
import { type ColumnPlan, planColumns, toImportRow } from './contact-import.schemas.ts';
import { findImportFile, type ImportRow, insertImportFile, setJobTotal, upsertContacts } from './contact-import.queries.ts';

export const IMPORT_JOB = 'contacts.import';
export type ImportJobData = { projectId: string; jobId: string };

/** api.md Limits: CSV import, 5 MB. */
export const MAX_IMPORT_BYTES = 5 * 1024 * 1024;
/** Rows per set-based upsert and per progress update. */
export const IMPORT_BATCH_ROWS = 500;

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

type CsvRecord = { record: string[]; info: Info };

/** Streams the file's records in 64 KB chunks; `row` is the record's number, the header being 1. */
async function* csvRecords(content: Buffer): AsyncGenerator<{ row: number; fields: string[] } | { row: number; parseError: string }> {
  const chunks = function* () {
    for (let offset = 0; offset < content.length; offset += 64 * 1024) yield content.subarray(offset, offset + 64 * 1024);
  };
  const parser = Readable.from(chunks()).pipe(
    parse({ bom: true, info: true, trim: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true }),
  );
  let row = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<CsvRecord>) {
      row = info.records;
      yield { row, fields: record };
    }
  } catch (error) {
    // Only a quote left open at the end of the file gets here (relax_quotes tolerates the rest).
    yield { row: row + 1, parseError: `Malformed CSV: ${(error as Error).message}` };
  }
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
    await recordEvents(tx, data.projectId, flipped.map((contact) => ({ contactId: contact.id, name: subscriptionEventName(contact.subscribed) })));
    await addProgress(tx, data.projectId, data.jobId, { processed: batch.processed, succeeded: batch.succeeded, failed: batch.errors.length, errors: batch.errors });
  });
}

async function countRecords(content: Buffer) {
  let records = 0;
  for await (const _ of csvRecords(content)) records++;
  return records;
}

/** Works one import job (contract §12 CSV rules); resumable after a crash, see writeBatch. */
export async function runImportJob(deps: ImportDeps, data: ImportJobData) {
  const { projectId, jobId } = data;
  const job = await startJob(deps.db, projectId, jobId);
  if (!job) return;
  const content = await findImportFile(deps.db, projectId, jobId);
  if (!content) return finishJob(deps.db, projectId, jobId, { status: 'failed', error: 'The uploaded file is no longer stored.' });

  const records = await countRecords(content);
  if (records === 0) return failHeader(deps, data, 'The file is empty: a header row with an email column is required.');
  await setJobTotal(deps.db, projectId, jobId, records - 1);

  let plan: ColumnPlan | undefined;
  let batch = new Batch();
  for await (const record of csvRecords(content)) {
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
  // New columns show in GET /contacts/fields as soon as the job reports completed.
  await computeFieldStats(deps.db, projectId);
  await finishJob(deps.db, projectId, jobId, { status: 'completed' });
}

function failHeader(deps: ImportDeps, { projectId, jobId }: ImportJobData, message: string) {
  return finishJob(deps.db, projectId, jobId, { status: 'failed', error: message, errors: [{ row: 1, message }] });
}
