// Browser-test support: build once when needed, start the real server (on a port the system picks) with its own data
// folder, launch Debian Chromium through playwright-core, sign up through the UI, serve the test admin page (the
// platform's side of App Bridge, over https) and save screenshots under test-artifacts/.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

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
  /**
   * How long to wait for /api/health (default 240 s). The server starts in seconds on an idle machine, but took
   * 40 s (and once more than 90 s) while other test runs loaded the 2 cores: the wait ends as soon as it answers.
   */
  readyTimeoutMs?: number;
}

/** What server/main.ts prints once it listens: the port the system gave it. */
const LISTENING = /Dubbing studio listening on http:\/\/[^:/\s]+:(\d+)/;

/**
 * Starts `node --import tsx server/main.ts` as a child with a temp DATA_DIR, listening on port 0 (the system picks
 * a free port, so two test runs on one machine never race for one); reads the port from its start-up line and
 * waits for /api/health.
 */
export async function startServer(opts: StartServerOptions = {}): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ds-e2e-'));
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: '0',
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

  const deadline = Date.now() + (opts.readyTimeoutMs ?? 240_000);
  let port = 0;
  for (;;) {
    if (exited !== null) {
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`server exited with code ${exited} before it was ready:\n${output}`);
    }
    if (!port) port = Number(LISTENING.exec(output)?.[1] ?? 0);
    if (port) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (r.ok) break;
      } catch {
        /* not answering yet */
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
      throw new Error(`server not ready in time (port ${port || 'not reported'}):\n${output}`);
    }
    // Polling a child process for readiness: each round checks the state again, the pause only spaces the rounds.
    await new Promise((r) => setTimeout(r, 150));
  }
  const url = `http://127.0.0.1:${port}`;

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

/**
 * How long a browser action or wait may take unless it says otherwise. Playwright's 30 s default was tight while
 * other test runs loaded the 2 cores (a first page load compiles and starts a lot); every wait still ends as soon
 * as its state shows.
 */
export const BROWSER_WAIT_MS = 90_000;

/** A browser context whose actions and waits use BROWSER_WAIT_MS by default. */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(BROWSER_WAIT_MS);
  context.setDefaultNavigationTimeout(BROWSER_WAIT_MS);
  return context;
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
  await page.waitForURL(/\/spaces\/[^/?#]+/);
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
  /** The app key the admin knows the app by (the source.apiKey of App Bridge messages). */
  key: string;
  secret: string;
  /** aud of the minted tokens when it should differ from `key` (a token for another app). */
  tokenKey?: string;
  shop?: string;
  sub?: string;
  email?: string;
  /** Token lifetime in seconds (default 60). */
  ttl?: number;
  mode?: 'normal' | 'silent' | 'refuse';
}

export interface ParentServer {
  /** https://localhost:<port>: the admin origin to allow with EMBED_ADMIN_ORIGINS. */
  origin: string;
  /** URL of the admin page framing the app with these settings. */
  pageUrl(opts: ParentPageOptions): string;
  close(): Promise<void>;
}

let certificate: { key: Buffer; cert: Buffer } | null = null;
/** A self-signed certificate for localhost, made once per test process with openssl (nothing is committed). */
export function localhostCertificate(): { key: Buffer; cert: Buffer } {
  if (certificate) return certificate;
  const dir = mkdtempSync(join(tmpdir(), 'ds-cert-'));
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2',
        '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    certificate = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
    return certificate;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Serves tests/e2e/parent.html (the platform's admin page: it frames the app and answers App Bridge) over
 * https on its own origin, https://localhost:<port>. App Bridge only talks to https parents, so browser
 * contexts using it need `ignoreHTTPSErrors: true` (the certificate is self-signed).
 */
export async function startParentServer(): Promise<ParentServer> {
  const html = readFileSync(join(ROOT, 'tests/e2e/parent.html'));
  const server = createHttpsServer(localhostCertificate(), (req, res) => {
    if ((req.url ?? '').split('?')[0] === '/admin') {
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
  const origin = `https://localhost:${port}`;
  return {
    origin,
    pageUrl(opts) {
      const q = new URLSearchParams({
        app: opts.appUrl,
        key: opts.key,
        secret: opts.secret,
        shop: opts.shop ?? 'test-shop.example.com',
        sub: opts.sub ?? 'shop-user-1',
        mode: opts.mode ?? 'normal',
      });
      if (opts.tokenKey) q.set('tokenKey', opts.tokenKey);
      if (opts.email) q.set('email', opts.email);
      if (opts.ttl !== undefined) q.set('ttl', String(opts.ttl));
      return `${origin}/admin?${q.toString()}`;
    },
    close: () =>
      new Promise<void>((res) => {
        server.closeAllConnections();
        server.close(() => res());
      }),
  };
}

export interface BrowserSuiteOptions {
  /** Started before the server (its origin often goes into the server's environment). */
  before?: () => Promise<void>;
  server?: StartServerOptions | (() => StartServerOptions);
  after?: () => Promise<void>;
  /** Default context options of newPage (a page's own options are merged over them). */
  context?: BrowserContextOptions;
  /** Console errors count as page errors too (except failed resource loads and the affiliate script). */
  consoleErrors?: boolean;
}

export interface BrowserSuite {
  readonly server: RunningServer;
  readonly browser: Browser;
  /** A page in a fresh context (closed with the suite) and the errors it raises. */
  newPage(options?: BrowserContextOptions): Promise<{ page: Page; errors: string[] }>;
}

/**
 * The usual frame of a browser test file: the front end built when stale, the server and Chromium started in
 * beforeAll, every context, the browser and the server closed in afterAll. Call it inside `describe`.
 */
export function browserSuite(o: BrowserSuiteOptions = {}): BrowserSuite {
  let server: RunningServer | undefined;
  let browser: Browser | undefined;
  const contexts: BrowserContext[] = [];
  const pageErrors: string[][] = [];
  beforeAll(async () => {
    ensureBuild();
    await o.before?.();
    server = await startServer(typeof o.server === 'function' ? o.server() : o.server);
    browser = await launchBrowser();
  });
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    // A page error is asserted by the test; the server's side of it is here.
    if (server && pageErrors.some((e) => e.length > 0)) console.error(server.logs().slice(-4000));
    await server?.stop();
    await o.after?.();
  });
  return {
    get server() {
      if (!server) throw new Error('the suite has not started');
      return server;
    },
    get browser() {
      if (!browser) throw new Error('the suite has not started');
      return browser;
    },
    async newPage(options = {}) {
      const context = await newContext(this.browser, { ...o.context, ...options });
      contexts.push(context);
      const page = await context.newPage();
      const errors: string[] = [];
      pageErrors.push(errors);
      page.on('pageerror', (e) => errors.push(`${String(e)}\n${e.stack ?? ''}`));
      if (o.consoleErrors) {
        page.on('console', (m) => {
          if (m.type() === 'error' && !/Affiliate script|Failed to load resource/.test(m.text())) errors.push(`console: ${m.text().slice(0, 2000)}`);
        });
      }
      return { page, errors };
    },
  };
}

/** A JSON call to the server over HTTP, outside the browser: its status and parsed body. */
export async function apiJson(
  server: RunningServer,
  method: string,
  path: string,
  token: string | null,
  body?: unknown,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read the fields they check
): Promise<{ status: number; json: any }> {
  const r = await fetch(`${server.url}${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

/**
 * The first account of an install is a superuser (not limited by plans, may grant them): made over HTTP so the
 * users of the test are ordinary customers. Its access token.
 */
export async function createSuperuser(server: RunningServer, password = 'secret-pass-1'): Promise<string> {
  const email = uniqueEmail('admin');
  const s = await apiJson(server, 'POST', '/api/auth/sign-up', null, { email, password });
  if (s.status !== 201) throw new Error(`sign-up of the superuser: ${s.status} ${JSON.stringify(s.json)}`);
  const made = await apiJson(server, 'POST', '/api/users', s.json.access_token, { email, referral_id: null, token: null });
  if (made.status !== 201) throw new Error(`account of the superuser: ${made.status} ${JSON.stringify(made.json)}`);
  return s.json.access_token as string;
}
