// Builds the dashboard (web/) into dist/web with Vite, unless its sources have not changed since
// the last build: a hash of web/'s files and the lockfile is kept beside the output.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

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

/** The hash of everything the build reads: web/'s files, the client package's sources (paths and contents), the lockfile and this script. */
export function sourceHash() {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(webDir).sort(), ...sourceFiles(clientDir).sort(), join(root, 'package-lock.json'), fileURLToPath(import.meta.url)]) {
    hash.update(relative(root, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

export function isBuilt() {
  return existsSync(join(outDir, 'index.html')) && existsSync(stampPath) && readFileSync(stampPath, 'utf8') === sourceHash();
}

const brotli = promisify(brotliCompress);
const gzipAsync = promisify(gzip);
// Text assets worth compressing; images and fonts are compressed formats already.
const COMPRESSIBLE = /\.(js|mjs|css|html|svg|json|txt|map|wasm)$/;
// Below this size the headers cost about what compression saves.
const MIN_BYTES = 1024;

/**
 * Writes a brotli (.br, quality 11) and a gzip (.gz, level 9) copy beside each text asset, so the
 * server sends them as they are (@fastify/static `preCompressed`) instead of compressing per
 * request. A copy that would not be smaller is not written. Returns the bytes before and after brotli.
 */
export async function precompress(dir) {
  const files = sourceFiles(dir).filter((file) => COMPRESSIBLE.test(file));
  let raw = 0;
  let br = 0;
  await Promise.all(
    files.map(async (file) => {
      const content = await readFile(file);
      if (content.length < MIN_BYTES) return;
      const [brotlied, gzipped] = await Promise.all([
        brotli(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: content.length } }),
        gzipAsync(content, { level: 9 }),
      ]);
      raw += content.length;
      br += Math.min(brotlied.length, content.length);
      if (brotlied.length < content.length) await writeFile(`${file}.br`, brotlied);
      if (gzipped.length < content.length) await writeFile(`${file}.gz`, gzipped);
    }),
  );
  return { raw, br };
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
  const { raw, br } = await precompress(join(outDir, 'assets'));
  writeFileSync(stampPath, hash);
  if (!quiet) console.log(`dashboard: built in ${((Date.now() - started) / 1000).toFixed(1)} s; assets ${(raw / 1024).toFixed(0)} KiB, ${(br / 1024).toFixed(0)} KiB with brotli`);
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await buildWeb({ force: process.argv.includes('--force') });
}
