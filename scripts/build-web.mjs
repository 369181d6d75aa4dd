// Builds the dashboard (web/) into dist/web with Vite, unless its sources have not changed since
// the last build: a hash of web/'s files and the lockfile is kept beside the output.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const webDir = join(root, 'web');
// The dashboard imports @mailroom/client from its sources (web/vite.config.ts).
const clientDir = join(root, 'packages', 'client', 'src');
const outDir = join(root, 'dist', 'web');
const stampPath = join(outDir, '.source-hash');

function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : [path];
  });
}

/** The hash of everything the build reads: web/'s files, the client package's sources (paths and contents) and the lockfile. */
export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(webDir).sort(), ...sourceFiles(clientDir).sort(), join(root, 'package-lock.json')]) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function isBuilt() {
  return existsSync(join(outDir, 'index.html')) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === sourceHash();
}

export async function buildWeb({ force = false, quiet = false } = {}) {
  if (!force && isBuilt()) {
    if (!quiet) console.log('dashboard: up to date (dist/web)');
    return false;
  }
  const hash = sourceHash();
  const started = Date.now();
  const { build } = await import('vite');
  await build({ configFile: join(webDir, 'vite.config.ts'), logLevel: quiet ? 'warn' : 'info' });
  writeFileSync(stampPath, hash);
  if (!quiet) console.log(`dashboard: built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildWeb({ force: process.argv.includes('--force') });
}
