// The kept answers of server/cache/answers.ts: one build per version however many reads arrive together,
// a new build for a new version or after the maximum age, failed builds not kept, the size limit, compressed forms.
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AnswerCache } from '../../../server/cache/answers';

afterEach(() => vi.useRealTimers());

function counter() {
  let builds = 0;
  return {
    get builds() {
      return builds;
    },
    build: (json: string) => async () => {
      builds++;
      await new Promise((r) => setImmediate(r));
      return json;
    },
  };
}

describe('kept answers', () => {
  it('builds once per version for reads that arrive together, and again for a new version', async () => {
    const cache = new AnswerCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const c = counter();
    const reads = await Promise.all(Array.from({ length: 20 }, () => cache.answer('p1', 'v1', c.build('{"a":1}'))));
    expect(c.builds).toBe(1);
    expect(new Set(reads).size).toBe(1);
    expect(reads[0]!.body.toString()).toBe('{"a":1}');
    expect((await cache.answer('p1', 'v2', c.build('{"a":2}'))).body.toString()).toBe('{"a":2}');
    expect(c.builds).toBe(2);
    // Another key is another answer.
    await cache.answer('p2', 'v2', c.build('{"b":1}'));
    expect(c.builds).toBe(3);
  });

  it('builds again after the maximum age, whatever the version', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const cache = new AnswerCache({ maxBytes: 1 << 20, maxAgeMs: 1000 });
    const c = counter();
    await cache.answer('k', 'v', c.build('1'));
    vi.setSystemTime(Date.now() + 999);
    await cache.answer('k', 'v', c.build('1'));
    expect(c.builds).toBe(1);
    vi.setSystemTime(Date.now() + 2);
    await cache.answer('k', 'v', c.build('1'));
    expect(c.builds).toBe(2);
  });

  it('does not keep a failed build, and keeps within its size, least recently read first', async () => {
    const cache = new AnswerCache({ maxBytes: 400, maxAgeMs: 60_000 });
    await expect(cache.answer('x', 'v', async () => Promise.reject(new Error('database gone')))).rejects.toThrow('database gone');
    expect((await cache.answer('x', 'v', async () => '"ok"')).body.toString()).toBe('"ok"');

    const c = counter();
    const big = (ch: string) => `"${ch.repeat(98)}"`; // 100 bytes
    for (const k of ['a', 'b', 'c', 'd']) await cache.answer(k, 'v', c.build(big(k)));
    await cache.answer('a', 'v', c.build(big('a'))); // read again: now the most recent
    await cache.answer('e', 'v', c.build(big('e'))); // over 400 bytes: the least recently read (b) goes
    expect(c.builds).toBe(5);
    expect(cache.keptBytes()).toBeLessThanOrEqual(400);
    await cache.answer('a', 'v', c.build(big('a')));
    expect(c.builds).toBe(5);
    await cache.answer('b', 'v', c.build(big('b')));
    expect(c.builds).toBe(6);
    // An answer over a quarter of the limit is answered but never kept.
    await cache.answer('huge', 'v', c.build(big('h'.repeat(2))));
    await cache.answer('huge', 'v', c.build(big('h'.repeat(2))));
    expect(c.builds).toBe(8);
  });

  it('makes each compressed form once, and it decodes to the JSON', async () => {
    const cache = new AnswerCache({ maxBytes: 1 << 20, maxAgeMs: 60_000 });
    const json = JSON.stringify({ segments: Array.from({ length: 200 }, (_, i) => ({ id: i, text: `Segment ${i} of a long transcript.` })) });
    const a = await cache.answer('t', 'v', async () => json);
    const br = a.encoded('br');
    expect(a.encoded('br')).toBe(br);
    expect(brotliDecompressSync(await br).toString()).toBe(json);
    const gz = await a.encoded('gzip');
    expect(gunzipSync(gz).toString()).toBe(json);
    expect(gz.length).toBeLessThan(json.length / 4);
  });
});
