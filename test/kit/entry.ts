import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// The root of the tree this file runs from: the repository when the tests run through tsx, the
// compiled copy of it (.build/tests-<pid>/, see scripts/test.mjs) when they run compiled.
const TREE_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMPILED = import.meta.url.endsWith('.js');

/**
 * Node's arguments to run one of the product's entry points (`src/main`, `src/rotate-secrets`) as a
 * process of its own, from the same tree as the tests: its compiled file, or its source through tsx.
 */
export function entryArgs(entry: string): string[] {
  return COMPILED ? ['--enable-source-maps', join(TREE_ROOT, `${entry}.js`)] : ['--import', 'tsx', join(TREE_ROOT, `${entry}.ts`)];
}
