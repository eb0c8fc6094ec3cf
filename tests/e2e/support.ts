// Browser-test support: build once when needed, start the real server on a free port with its own data folder,
// launch Debian Chromium through playwright-core, sign up through the UI, serve the test parent frame, and save
// screenshots under test-artifacts/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const DIST = join(ROOT, 'dist');
export const ARTIFACTS = join(ROOT, 'test-artifacts');
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
  '--disable-sync',
];

/** What the front-end builds are made from: a change to any of these makes dist/ stale. */
export const BUILD_INPUTS = ['src', 'embed', 'standalone', 'contract', 'index.html', 'vite.config.ts', 'package.json'];

function newestMtime(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** True when both builds exist and are newer than every build input. */
export function buildIsFresh(root = ROOT): boolean {
  const outputs = [join(root, 'dist/standalone/index.html'), join(root, 'dist/embed/index.html')];
  if (!outputs.every((p) => existsSync(p))) return false;
  const built = Math.min(...outputs.map((p) => statSync(p).mtimeMs));
  const inputs = Math.max(...BUILD_INPUTS.map((p) => newestMtime(join(root, p))));
  return built > inputs;
}

let buildChecked = false;
/** Runs `npm run build` once per test process when dist/ is missing or older than the sources. */
export function ensureBuild(): void {
  if (buildChecked) return;
  if (!buildIsFresh()) {
    // vitest runs with NODE_ENV=test; a build under it would be a development build.
    execFileSync('npm', ['run', 'build'], {
      cwd: ROOT,
      stdio: ['ignore', 'inherit', 'inherit'],
      timeout: 600_000,
      env: { ...process.env, NODE_ENV: 'production' },
    });
    if (!buildIsFresh()) throw new Error('npm run build finished but dist/standalone and dist/embed are missing or stale');
  }
  buildChecked = true;
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createNetServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => res(port));
    });
  });
}

export interface RunningServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  dataDir: string;
  logs(): string;
  stop(): Promise<void>;
}

export interface StartServerOptions {
  env?: Record<string, string>;
  /** How long to wait for /api/health (default 90 s). */
  readyTimeoutMs?: number;
}

/** Starts `node --import tsx server/main.ts` as a child with a temp DATA_DIR on a free port; waits for /api/health. */
export async function startServer(opts: StartServerOptions = {}): Promise<RunningServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-e2e-'));
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      JWT_SECRET: randomBytes(32).toString('hex'),
      EMBEDDED_WORKER: '0',
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d) => (output += String(d)));
  child.stderr?.on('data', (d) => (output += String(d)));
  let exited: number | null = null;
  const exitPromise = new Promise<void>((res) => child.once('exit', (code) => ((exited = code ?? -1), res())));

  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + (opts.readyTimeoutMs ?? 90_000);
  for (;;) {
    if (exited !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`server exited with code ${exited} before it was ready:\n${output}`);
    }
    try {
      const r = await fetch(`${url}/api/health`);
      if (r.ok) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`server not ready on ${url} in time:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }

  return {
    url,
    port,
    dataDir,
    logs: () => output,
    async stop() {
      if (exited === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitPromise;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Debian Chromium through playwright-core with the flags the CI machine needs. */
export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, headless: true });
}

export interface Credentials {
  email: string;
  password: string;
}

/** A unique e-mail for one test. */
export function uniqueEmail(prefix = 'e2e'): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}@example.com`;
}

/** Signs up through /auth (sign-up tab) and waits until the app shows a space (/spaces/<id>). */
export async function signUpThroughUi(page: Page, baseUrl: string, creds: Credentials): Promise<void> {
  await page.goto(`${baseUrl}/auth?mode=sign-up`);
  const form = page.getByRole('form', { name: 'Sign up' });
  await form.getByLabel('Email', { exact: true }).fill(creds.email);
  await form.getByLabel('Confirm email', { exact: true }).fill(creds.email);
  await form.getByLabel('Password', { exact: true }).fill(creds.password);
  await form.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(/\/spaces\/[^/?#]+/, { timeout: 30_000 });
}

/** Signs in through /auth and waits for a space. */
export async function signInThroughUi(page: Page, baseUrl: string, creds: Credentials): Promise<void> {
  await page.goto(`${baseUrl}/auth`);
  const form = page.getByRole('form', { name: 'Sign in' });
  await form.getByLabel('Email', { exact: true }).fill(creds.email);
  await form.getByLabel('Password', { exact: true }).fill(creds.password);
  await form.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(/\/spaces\/[^/?#]+/, { timeout: 30_000 });
}

/** Saves a full-page screenshot to test-artifacts/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name.replace(/[^a-z0-9._-]+/gi, '-')}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

export interface ParentPageOptions {
  /** Embedded app URL, e.g. http://127.0.0.1:<port>/embed/ */
  appUrl: string;
  key: string;
  secret: string;
  shop?: string;
  sub?: string;
  email?: string;
  mode?: 'normal' | 'silent' | 'error';
}

export interface ParentPage {
  /** The parent page URL (on another origin than the app: http://localhost:<port>). */
  url: string;
  close(): Promise<void>;
}

/** Serves tests/e2e/parent.html on its own origin; the URL carries the app URL and the test key/secret. */
export async function serveParentPage(opts: ParentPageOptions): Promise<ParentPage> {
  const html = readFileSync(join(ROOT, 'tests/e2e/parent.html'));
  const server: Server = createHttpServer((req, res) => {
    if ((req.url ?? '').split('?')[0] === '/parent.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      res.end(html);
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('not found');
    }
  });
  const port = await new Promise<number>((res) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      res(typeof a === 'object' && a ? a.port : 0);
    }),
  );
  const q = new URLSearchParams({
    app: opts.appUrl,
    key: opts.key,
    secret: opts.secret,
    shop: opts.shop ?? 'test-shop.example.com',
    sub: opts.sub ?? 'shop-user-1',
    mode: opts.mode ?? 'normal',
  });
  if (opts.email) q.set('email', opts.email);
  return {
    url: `http://localhost:${port}/parent.html?${q.toString()}`,
    close: () => new Promise<void>((res) => server.close(() => res())),
  };
}
