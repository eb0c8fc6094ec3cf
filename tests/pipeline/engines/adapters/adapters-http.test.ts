// The adapters' HTTP layer against a local fake server: credentials refused, 429 with Retry-After,
// 5xx, hangs, truncated and malformed bodies, cancellation, and redaction of keys.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EngineAdapterError, EngineAuthError, EngineResponseError } from '../../../../server/engines/adapters/errors';
import {
  EngineHttpClient,
  backoffDelay,
  defaultSleep,
  parseRetryAfter,
  redact,
  DEFAULT_RETRY,
} from '../../../../server/engines/adapters/http';
import { isAbortError } from '../../../../server/media/errors';
import { FakeOpenAi } from '../../../fakes/openai';
import { caught, collectLog, recordingSleep } from '../../../fakes/util';

const KEY = 'sk-test-fake-openai-key-0123456789';
const chatBody = {
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: JSON.stringify({ task: 'rewrite', text: 'hello there JSON' }) }],
  response_format: { type: 'json_object' },
};

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await new FakeOpenAi({ apiKey: KEY }).start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.clearFaults();
  fake.requests.length = 0;
});

function makeClient(o: { key?: string; timeoutMs?: number; maxAttempts?: number; maxDelayMs?: number; sleep?: typeof defaultSleep; log?: (l: string) => void } = {}) {
  const rec = recordingSleep();
  const logs = collectLog();
  const key = o.key ?? KEY;
  const c = new EngineHttpClient({
    engine: 'openai',
    baseUrl: `${fake.url}/v1`,
    headers: { Authorization: `Bearer ${key}` },
    secrets: [key],
    timeoutMs: o.timeoutMs ?? 5000,
    retry: { maxAttempts: o.maxAttempts ?? 4, ...(o.maxDelayMs ? { maxDelayMs: o.maxDelayMs } : {}) },
    sleep: o.sleep ?? rec.sleep,
    log: o.log ?? logs.log,
  });
  return { c, delays: rec.delays, lines: logs.lines };
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const chat = (c: EngineHttpClient, signal?: AbortSignal) => c.json<any>('POST', '/chat/completions', { json: chatBody, signal, what: 'chat' });

describe('EngineHttpClient', () => {
  it('returns the parsed JSON of a normal answer and sends the bearer key', async () => {
    const { c } = makeClient();
    const res = (await chat(c)) as { object: string; choices: unknown[] };
    expect(res.object).toBe('chat.completion');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(fake.violations()).toEqual([]);
  });

  it('401: fails at once naming the engine, without the key in the message or the logs', async () => {
    const wrong = 'sk-wrong-key-that-must-stay-secret-42';
    const { c, lines } = makeClient({ key: wrong });
    const err = await chat(c).catch(caught);
    expect(err).toBeInstanceOf(EngineAuthError);
    expect(err.message).toContain('engine openai rejected the credentials');
    expect(err.reason).toBe('auth');
    expect(err.message).not.toContain(wrong);
    expect(String(err.stack)).not.toContain(wrong);
    expect(lines.join('\n')).not.toContain(wrong);
    expect(fake.requests).toHaveLength(1); // never retried
  });

  it('403: the same non-retryable credentials error', async () => {
    fake.fail({ kind: 'status', status: 403, body: { error: { message: `Key ${KEY} is not allowed` } } });
    const { c } = makeClient();
    const err = await chat(c).catch(caught);
    expect(err).toBeInstanceOf(EngineAuthError);
    expect(err.message).toMatch(/^engine openai rejected the credentials/);
    expect(err.status).toBe(403);
    expect(fake.requests).toHaveLength(1);
  });

  it('429: waits Retry-After (at least) before retrying, then succeeds', async () => {
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '3' }, body: { error: { message: 'Rate limit reached' } } }, 2);
    const { c, delays, lines } = makeClient();
    const res = (await chat(c)) as { object: string };
    expect(res.object).toBe('chat.completion');
    expect(fake.requests).toHaveLength(3);
    expect(delays).toEqual([3000, 3000]);
    expect(lines.filter((l) => l.includes('HTTP 429'))).toHaveLength(2);
  });

  it('429 without Retry-After: capped exponential back-off, then a rate-limit failure', async () => {
    fake.fail({ kind: 'status', status: 429 }, 10);
    const { c, delays } = makeClient({ maxAttempts: 5, maxDelayMs: 1500 });
    const err = await chat(c).catch(caught);
    expect(err).toBeInstanceOf(EngineAdapterError);
    expect(err.reason).toBe('rate_limited');
    expect(err.message).toContain('engine openai');
    expect(delays).toEqual([500, 1000, 1500, 1500]);
    expect(fake.requests).toHaveLength(5);
  });

  it('429 asking for a longer wait than allowed fails at once', async () => {
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '3600' } });
    const { c, delays } = makeClient();
    const err = await chat(c).catch(caught);
    expect(err.reason).toBe('rate_limited');
    expect(err.message).toContain('3600 s');
    expect(delays).toEqual([]);
  });

  it('5xx: bounded retries with back-off, then failure naming the status', async () => {
    fake.fail({ kind: 'status', status: 500, body: { error: { message: 'The server had an error' } } }, 10);
    const { c, delays } = makeClient({ maxAttempts: 3 });
    const err = await chat(c).catch(caught);
    expect(err).toBeInstanceOf(EngineAdapterError);
    expect(err.reason).toBe('unavailable');
    expect(err.code).toBe('unavailable');
    expect(err.message).toContain('HTTP 500');
    expect(err.message).toContain('3 attempts');
    expect(fake.requests).toHaveLength(3);
    expect(delays).toEqual([500, 1000]);
  });

  it('5xx once, then a normal answer', async () => {
    fake.fail({ kind: 'status', status: 503 });
    const { c } = makeClient();
    await expect(chat(c)).resolves.toMatchObject({ object: 'chat.completion' });
    expect(fake.requests).toHaveLength(2);
  });

  it('a server that never answers times out per attempt, retried a bounded number of times', async () => {
    fake.fail({ kind: 'hang' }, 2);
    const { c } = makeClient({ timeoutMs: 150, maxAttempts: 2 });
    const t0 = Date.now();
    const err = await chat(c).catch(caught);
    expect(err.reason).toBe('timeout');
    expect(err.message).toContain('did not answer');
    expect(fake.requests).toHaveLength(2);
    // Two 150 ms attempts (the back-off is recorded, not waited): far below the 5 s an attempt would hang without
    // its own time limit, with room for a loaded machine.
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a truncated body is retried and finally an EngineResponseError', async () => {
    fake.fail({ kind: 'truncate' }, 5);
    const { c } = makeClient({ maxAttempts: 2 });
    const err = await chat(c).catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('truncated');
    expect(fake.requests).toHaveLength(2);
  });

  it('a truncated body once, then a complete one', async () => {
    fake.fail({ kind: 'truncate' });
    const { c } = makeClient();
    await expect(chat(c)).resolves.toMatchObject({ object: 'chat.completion' });
  });

  it('malformed JSON is an EngineResponseError (not retried)', async () => {
    fake.fail({ kind: 'malformed' });
    const { c } = makeClient();
    const err = await chat(c).catch(caught);
    expect(err).toBeInstanceOf(EngineResponseError);
    expect(err.message).toContain('engine openai returned an unusable response');
    expect(fake.requests).toHaveLength(1);
  });

  it('other 4xx: refused at once with the service message, redacted', async () => {
    fake.fail({ kind: 'status', status: 400, body: { error: { message: `Invalid 'model' for key ${KEY}` } } });
    const { c } = makeClient();
    const err = await chat(c).catch(caught);
    expect(err.reason).toBe('rejected');
    expect(err.message).toContain('HTTP 400');
    expect(err.message).toContain("Invalid 'model'");
    expect(err.message).toContain('[redacted]');
    expect(err.message).not.toContain(KEY);
  });

  it('an unreachable server: bounded retries then unavailable, key not in the message', async () => {
    const c = new EngineHttpClient({
      engine: 'openai',
      baseUrl: 'http://127.0.0.1:9/v1',
      headers: { Authorization: `Bearer ${KEY}` },
      retry: { maxAttempts: 2 },
      sleep: recordingSleep().sleep,
      log: () => {},
    });
    const err = await c.request('GET', '/models').then(() => null, caught);
    expect(err.reason).toBe('unavailable');
    expect(err.message).toContain('unreachable');
    expect(err.message).not.toContain(KEY);
  });

  it('calls that create something are not repeated after an ambiguous failure, but are after 429/503', async () => {
    const { c } = makeClient();
    fake.fail({ kind: 'status', status: 500 }, 3);
    const err = await c.json('POST', '/chat/completions', { json: chatBody, idempotent: false }).then(() => null, caught);
    expect(err.reason).toBe('unavailable');
    expect(err.message).toContain('1 attempt');
    expect(fake.requests).toHaveLength(1);

    fake.clearFaults();
    fake.requests.length = 0;
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '1' } });
    fake.fail({ kind: 'status', status: 503 });
    await expect(c.json('POST', '/chat/completions', { json: chatBody, idempotent: false })).resolves.toMatchObject({ object: 'chat.completion' });
    expect(fake.requests).toHaveLength(3);
  });

  it('a per-call attempt limit overrides the policy', async () => {
    fake.fail({ kind: 'status', status: 502 }, 5);
    const { c } = makeClient({ maxAttempts: 4 });
    const err = await c.json('GET', '/models', { maxAttempts: 2 }).then(() => null, caught);
    expect(err.message).toContain('2 attempts');
    expect(fake.requests).toHaveLength(2);
  });

  it('an aborted signal stops a hanging call promptly with an AbortError', async () => {
    fake.fail({ kind: 'hang' });
    const { c } = makeClient({ timeoutMs: 60_000 });
    const ctl = new AbortController();
    const call = chat(c, ctl.signal).catch(caught);
    // Cancelled once the request hangs at the server (not after a guessed delay, which a slow start could beat).
    await fake.untilRequests(1);
    ctl.abort();
    const err = await call;
    // An AbortError, not the 60 s timeout: the hanging call stopped at once.
    expect(isAbortError(err)).toBe(true);
    expect(fake.requests).toHaveLength(1);
  });

  it('an aborted signal interrupts the back-off wait', async () => {
    fake.fail({ kind: 'status', status: 429, headers: { 'Retry-After': '30' } }, 3);
    const ctl = new AbortController();
    // The real back-off wait, cancelled as soon as it starts; records how that wait ended.
    const waits: Array<{ ms: number; ended: Promise<string> }> = [];
    const sleep: typeof defaultSleep = (ms, signal) => {
      const wait = defaultSleep(ms, signal);
      waits.push({ ms, ended: wait.then(() => 'slept', (e) => (isAbortError(e) ? 'aborted' : String(e))) });
      ctl.abort();
      return wait;
    };
    const { c } = makeClient({ sleep });
    const err = await chat(c, ctl.signal).catch(caught);
    expect(isAbortError(err)).toBe(true);
    expect(waits).toHaveLength(1);
    expect(waits[0]!.ms).toBeGreaterThanOrEqual(1000);
    expect(await waits[0]!.ended).toBe('aborted');
    expect(fake.requests).toHaveLength(1);
  });

  it('an already aborted signal sends nothing', async () => {
    const { c } = makeClient();
    const err = await chat(c, AbortSignal.abort()).catch(caught);
    expect(isAbortError(err)).toBe(true);
    expect(fake.requests).toHaveLength(0);
  });
});

describe('helpers', () => {
  it('parseRetryAfter reads seconds and HTTP dates', () => {
    expect(parseRetryAfter('7')).toBe(7000);
    expect(parseRetryAfter('0.5')).toBe(500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:12 GMT', now)).toBe(12_000);
    expect(parseRetryAfter(null)).toBeNull();
    expect(parseRetryAfter('soon')).toBeNull();
  });

  it('backoffDelay doubles and is capped', () => {
    const p = { ...DEFAULT_RETRY, baseDelayMs: 100, maxDelayMs: 350 };
    expect([1, 2, 3, 4].map((n) => backoffDelay(n, p))).toEqual([100, 200, 350, 350]);
  });

  it('redact removes keys and their URL-encoded form', () => {
    const k = 'abc/def+ghi=';
    expect(redact(`x ${k} y ${encodeURIComponent(k)}`, [k])).toBe('x [redacted] y [redacted]');
  });
});
