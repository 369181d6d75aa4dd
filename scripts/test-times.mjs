// A test reporter that prints, once the run has ended, the test files that took longest: the sum
// of each file's top-level tests and suites (their hooks included), slowest first. It runs beside
// the spec reporter (scripts/test.mjs), so a slow suite shows where its time went.
const SHOWN = 15;

/** A test file's path as the repository names it: a compiled copy (.build/tests-<pid>/…js) by its source. */
function sourceOf(file) {
  const root = `${process.cwd()}/`;
  const path = file.startsWith(root) ? file.slice(root.length) : file;
  const compiled = /^\.build\/tests-\d+\/(.*)\.js$/.exec(path);
  return compiled ? `${compiled[1]}.ts` : path;
}

export default async function* fileTimes(source) {
  const totals = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0) continue;
    const file = event.data.file ?? event.data.name;
    totals.set(file, (totals.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const slowest = [...totals].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  if (slowest.length === 0) return;
  yield `\nslowest test files (seconds, top-level tests and suites summed):\n`;
  for (const [file, ms] of slowest) yield `${(ms / 1000).toFixed(1).padStart(8)}  ${sourceOf(file)}\n`;
}
