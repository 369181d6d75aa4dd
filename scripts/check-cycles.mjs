// npm run check:cycles: fails on any import cycle in src/ or web/src/, type-only imports included,
// and on a capability importing the wiring above it (docs/architecture.md, "Import cycles").
//
// madge reads TypeScript with typescript-estree, which needs TypeScript's JavaScript API. The
// root's TypeScript 7 (the native tsc) has none, so while madge runs, `typescript` resolves to the
// web workspace's TypeScript 5.9, which madge is installed beside.
import Module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const fromWeb = createRequire(`${root}web/package.json`);
const typescript = fromWeb.resolve('typescript');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return request === 'typescript' ? typescript : resolveFilename.call(this, request, ...rest);
};
const madge = fromWeb('madge');

/** The wiring: what builds the capabilities and lists them. Nothing below may import it. */
const WIRING = new Set(['src/main.ts', 'src/server.ts', 'src/app.ts', 'src/modules.ts']);

const detective = { skipTypeImports: false, skipAsyncImports: false };
const trees = [
  { name: 'src', tsConfig: `${root}tsconfig.json` },
  { name: 'web/src', tsConfig: `${root}web/tsconfig.json` },
];

let failed = false;
for (const tree of trees) {
  const graph = await madge(`${root}${tree.name}`, {
    baseDir: root,
    fileExtensions: ['ts', 'tsx'],
    tsConfig: tree.tsConfig,
    detectiveOptions: { ts: detective, tsx: detective },
  });
  const files = Object.keys(graph.obj()).length;
  const cycles = graph.circular();
  console.log(`${tree.name}: ${files} files, ${cycles.length} import cycles (type-only imports included)`);
  for (const cycle of cycles) console.log(`  ${[...cycle, cycle[0]].join(' → ')}`);
  if (cycles.length > 0) failed = true;
  if (tree.name === 'src') {
    for (const [file, imports] of Object.entries(graph.obj())) {
      if (WIRING.has(file)) continue;
      for (const imported of imports.filter((target) => WIRING.has(target))) {
        console.log(`  ${file} imports ${imported}: only the wiring (${[...WIRING].join(', ')}) may`);
        failed = true;
      }
    }
  }
}
process.exit(failed ? 1 : 0);
