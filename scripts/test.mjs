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
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', `--test-concurrency=${concurrency}`, ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
