import type { Measurement, Scenario } from '../scenario.ts';

const TARGET_BYTES = 5 * 1024 * 1024 - 64 * 1024; // just under the 5 MB import limit

function csvOfAbout(bytes: number): { csv: string; rows: number } {
  const lines = ['email,first_name,plan,age,subscribed,signed_up'];
  let size = lines[0]!.length + 1;
  let rows = 0;
  const run = Date.now().toString(36);
  while (size < bytes) {
    const line = `import-${run}-${rows}@bench.test,Name${rows},${rows % 2 ? 'pro' : 'free'},${20 + (rows % 50)},${rows % 7 ? 'true' : 'false'},2026-0${1 + (rows % 9)}-1${rows % 10}`;
    lines.push(line);
    size += line.length + 1;
    rows++;
  }
  return { csv: `${lines.join('\n')}\n`, rows };
}

// BENCH_IMPORT_WITH_SEGMENT=1: a segment on two of the file's keys is saved first, so every row
// imported is also written to the segments' narrow copy (docs/decisions/segments.md).
const WITH_SEGMENT = process.env.BENCH_IMPORT_WITH_SEGMENT === '1';

/** POST /contacts/import of a 5 MB CSV, timed from upload to the job's completion. */
export const contactsImport: Scenario = {
  name: 'contacts-import',
  description: 'CSV import of a 5 MB file: rows per second from upload to completed',
  run: async (ctx): Promise<Measurement> => {
    if (WITH_SEGMENT) {
      const condition = {
        logic: 'AND',
        groups: [
          {
            filters: [
              { field: 'data.plan', operator: 'equals', value: 'pro' },
              { field: 'data.age', operator: 'greaterThan', value: 30 },
            ],
          },
        ],
      };
      const segment = await ctx.project.api.post('/segments', { name: 'Pro, over 30', condition });
      if (segment.status !== 201) throw new Error(`segment create answered ${segment.status}: ${segment.text}`);
    }
    const { csv, rows } = csvOfAbout(TARGET_BYTES);
    const form = new FormData();
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'contacts.csv');
    const started = performance.now();
    const upload = await ctx.project.api.request('POST', '/contacts/import', undefined, { rawBody: form });
    if (upload.status !== 202) throw new Error(`import upload answered ${upload.status}: ${upload.text}`);
    let job = upload.body;
    while (job.status !== 'completed' && job.status !== 'failed') {
      await new Promise((resolve) => setTimeout(resolve, 100));
      job = (await ctx.project.api.get(`/contacts/import/${upload.body.jobId}`)).body;
    }
    const seconds = (performance.now() - started) / 1000;
    if (job.status !== 'completed' || job.succeeded !== rows) throw new Error(`import ended ${job.status} with ${job.succeeded}/${rows} rows`);
    return {
      reqPerSec: Math.round((rows / seconds) * 10) / 10,
      unit: 'rows/s',
      rows,
      bytes: Buffer.byteLength(csv),
      seconds: Math.round(seconds * 100) / 100,
      p50Ms: null,
      p99Ms: null,
      errors: 0,
      non2xx: 0,
      durationSeconds: Math.round(seconds * 100) / 100,
      connections: 1,
      withSegment: WITH_SEGMENT,
    };
  },
};
