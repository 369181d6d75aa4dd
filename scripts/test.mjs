// Runs every test file under test/ with node's test runner. Node 20's runner does not expand globs
// itself, so the files are listed here.
//
// The TypeScript is compiled once per run (tsc, emit only: `npm run typecheck` checks the types)
// into a directory of its own under .build/, and the runner loads the JavaScript: each test file
// is its own process, and loading the sources through tsx cost each one about a second of CPU.
// Two runs side by side (CI's PostgreSQL and Citus passes) each compile their own copy. The copy
// is removed when the run ends. TEST_LOADER=tsx runs the sources through tsx instead.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';

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
if (files.length === 0) {
  console.error(`no test file matches ${args.join(' ')}`);
  process.exit(1);
}
// Test files run two at a time unless TEST_CONCURRENCY says otherwise: most of a file's time is
// spent waiting (on SMTP peers, timers and restarts), not on the CPU.
const concurrency = Number(process.env.TEST_CONCURRENCY) || 2;
// A file that has not ended after TEST_FILE_TIMEOUT_S seconds (default 900, several times the
// slowest file's time under a loaded run) fails as timed out instead of holding the run forever.
const fileTimeoutMs = (Number(process.env.TEST_FILE_TIMEOUT_S) || 900) * 1000;
const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', '--test-reporter=./scripts/test-times.mjs', '--test-reporter-destination=stdout'];
const runner = [...reporters, `--test-concurrency=${concurrency}`, `--test-timeout=${fileTimeoutMs}`];

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

function run(nodeArgs) {
  const result = spawnSync(process.execPath, nodeArgs, { stdio: 'inherit' });
  return result.status ?? 1;
}

if (process.env.TEST_LOADER === 'tsx') process.exit(run(['--import', 'tsx', '--test', ...runner, ...files]));

// A copy left by a run that was killed (its process is gone) is removed first.
mkdirSync('.build', { recursive: true });
for (const name of readdirSync('.build')) {
  const pid = Number(/^tests-(\d+)$/.exec(name)?.[1]);
  if (pid && !isRunning(pid)) rmSync(join('.build', name), { recursive: true, force: true });
}
const outDir = join('.build', `tests-${process.pid}`);
let status = 1;
try {
  const compiled = spawnSync(process.execPath, [join('node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json', '--noCheck', '--outDir', outDir], { stdio: 'inherit' });
  if (compiled.status !== 0) {
    console.error('the tests did not compile (tsc, above)');
  } else {
    const compiledFiles = files.map((file) => join(outDir, relative('.', file)).replace(/\.ts$/, '.js'));
    status = run(['--enable-source-maps', '--test', ...runner, ...compiledFiles]);
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
process.exit(status);
