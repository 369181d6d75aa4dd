// Runs every test file under test/ with node's test runner through tsx.
// Node 20's runner does not expand globs itself, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'kit' ? [] : findTests(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

// Arguments pick the files whose path contains one of them; an argument starting with `!` leaves
// out the files whose path contains the rest of it.
const args = process.argv.slice(2);
const picks = args.filter((a) => !a.startsWith('!'));
const omits = args.filter((a) => a.startsWith('!')).map((a) => a.slice(1));
const files = findTests('test')
  .filter((file) => picks.length === 0 || picks.some((f) => file.includes(f)))
  .filter((file) => !omits.some((f) => file.includes(f)))
  .sort();
// Test files run two at a time unless TEST_CONCURRENCY says otherwise: most of a file's time is
// spent waiting (on SMTP peers, timers and restarts), not on the CPU.
const concurrency = Number(process.env.TEST_CONCURRENCY) || 2;
// A file that has not ended after TEST_FILE_TIMEOUT_S seconds (default 900, several times the
// slowest file's time under a loaded run) fails as timed out instead of holding the run forever.
const fileTimeoutMs = (Number(process.env.TEST_FILE_TIMEOUT_S) || 900) * 1000;
const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout'];
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', ...reporters, `--test-concurrency=${concurrency}`, `--test-timeout=${fileTimeoutMs}`, ...files], {
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
