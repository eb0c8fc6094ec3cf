// Web bench: builds the standalone front end and reports the gzipped size of its initial JavaScript: the entry
// chunk plus every chunk it imports statically (what the browser must load before the first render). Route pages
// load lazily and are not counted. Aim: under 300 kB.
//   node --import tsx bench/web.ts            (build, then measure)
//   node --import tsx bench/web.ts --no-build (measure the existing dist/standalone)
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const WEB_BUDGET_GZIP_BYTES = 300 * 1024;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

export interface WebBenchResult {
  initialJsBytes: number;
  initialJsGzipBytes: number;
  initialCssGzipBytes: number;
  lazyJsGzipBytes: number;
  files: { file: string; bytes: number; gzipBytes: number }[];
  withinBudget: boolean;
}

function gz(buf: Buffer): number {
  return gzipSync(buf, { level: 9 }).length;
}

/** Measures dist/standalone from its Vite manifest. */
export function measureStandalone(outDir = join(ROOT, 'dist/standalone')): WebBenchResult {
  const manifestPath = join(outDir, '.vite/manifest.json');
  if (!existsSync(manifestPath)) throw new Error(`No build manifest at ${manifestPath}: run the build first`);
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as Record<string, ManifestChunk>;
  const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry);
  if (!entryKey) throw new Error('The manifest has no entry chunk');

  const initial = new Set<string>();
  const css = new Set<string>();
  const walk = (key: string) => {
    if (initial.has(key)) return;
    initial.add(key);
    for (const c of manifest[key].css ?? []) css.add(c);
    for (const dep of manifest[key].imports ?? []) walk(dep);
  };
  walk(entryKey);

  const files = [...initial].map((key) => {
    const buf = readFileSync(join(outDir, manifest[key].file));
    return { file: manifest[key].file, bytes: buf.length, gzipBytes: gz(buf) };
  });
  files.sort((a, b) => b.gzipBytes - a.gzipBytes);
  const lazy = Object.keys(manifest)
    .filter((k) => !initial.has(k) && manifest[k].file.endsWith('.js'))
    .reduce((sum, k) => sum + gz(readFileSync(join(outDir, manifest[k].file))), 0);
  const initialJsGzipBytes = files.reduce((s, f) => s + f.gzipBytes, 0);
  return {
    initialJsBytes: files.reduce((s, f) => s + f.bytes, 0),
    initialJsGzipBytes,
    initialCssGzipBytes: [...css].reduce((s, f) => s + gz(readFileSync(join(outDir, f))), 0),
    lazyJsGzipBytes: lazy,
    files,
    withinBudget: initialJsGzipBytes <= WEB_BUDGET_GZIP_BYTES,
  };
}

const kb = (n: number) => `${(n / 1024).toFixed(1)} kB`;

/** Builds the standalone front end (unless build=false), measures it and prints the figures. */
export function runWebBench(opts: { build?: boolean; log?: (line: string) => void } = {}): WebBenchResult {
  const log = opts.log ?? ((l: string) => console.log(l));
  if (opts.build !== false) {
    execFileSync('npx', ['vite', 'build', '--mode', 'standalone', '--logLevel', 'warn'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
  }
  const r = measureStandalone();
  log('web: standalone build, initial JavaScript (entry + static imports)');
  for (const f of r.files) log(`  ${f.file.padEnd(44)} ${kb(f.bytes).padStart(10)}  gzip ${kb(f.gzipBytes).padStart(9)}`);
  log(`  initial JS total: ${kb(r.initialJsBytes)}, gzip ${kb(r.initialJsGzipBytes)} (budget ${kb(WEB_BUDGET_GZIP_BYTES)}: ${r.withinBudget ? 'within' : 'OVER'})`);
  log(`  initial CSS gzip: ${kb(r.initialCssGzipBytes)}; lazily loaded JS gzip: ${kb(r.lazyJsGzipBytes)}`);
  return r;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  runWebBench({ build: !process.argv.includes('--no-build') });
}
