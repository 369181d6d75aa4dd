// npm run check:cycles: fails on any import cycle in src/ or web/src/, type-only imports included,
// on a cycle between capability folders of src/ (delivery → campaigns → delivery, through any
// files), and on a capability importing the wiring above it (docs/architecture.md, "Import cycles").
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

/**
 * The capability folders (src/<folder>/…) that import each other in a loop: the strongly
 * connected components of the folder graph with more than one folder (Tarjan), each with the
 * file imports that tie it.
 */
function folderCycles(graph) {
  const folderOf = (file) => {
    const parts = file.split('/');
    return parts.length > 2 ? parts[1] : null;
  };
  const edges = new Map();
  for (const [file, imports] of Object.entries(graph)) {
    const from = folderOf(file);
    if (!from) continue;
    for (const target of imports) {
      const to = folderOf(target);
      if (!to || to === from) continue;
      if (!edges.has(from)) edges.set(from, new Map());
      const ties = edges.get(from);
      ties.set(to, [...(ties.get(to) ?? []), `${file} → ${target}`]);
    }
  }
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  const visit = (folder) => {
    index.set(folder, index.size);
    low.set(folder, index.get(folder));
    stack.push(folder);
    onStack.add(folder);
    for (const next of edges.get(folder)?.keys() ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(folder, Math.min(low.get(folder), low.get(next)));
      } else if (onStack.has(next)) low.set(folder, Math.min(low.get(folder), index.get(next)));
    }
    if (low.get(folder) === index.get(folder)) {
      const component = [];
      let member;
      do {
        member = stack.pop();
        onStack.delete(member);
        component.push(member);
      } while (member !== folder);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const folder of edges.keys()) if (!index.has(folder)) visit(folder);
  return components.map((folders) => ({
    folders,
    ties: folders.flatMap((from) => [...(edges.get(from) ?? [])].filter(([to]) => folders.includes(to)).flatMap(([, ties]) => ties)),
  }));
}

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
    const loops = folderCycles(graph.obj());
    console.log(`src: ${loops.length} cycles between capability folders`);
    for (const loop of loops) {
      console.log(`  ${loop.folders.join(' ↔ ')}`);
      for (const tie of loop.ties) console.log(`    ${tie}`);
    }
    if (loops.length > 0) failed = true;
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
