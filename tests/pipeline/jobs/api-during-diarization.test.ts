// Nothing CPU-heavy runs on the API's event loop: speaker detection of 5 minutes of speech runs in a worker
// thread, so while it runs the API's event loop stays mostly idle and every request is answered. The figure
// that would catch a regression without depending on this machine's load is the event loop's utilisation
// (busy time over elapsed time, perf_hooks): near 1 when diarization runs on it, near 0 here. The latencies
// themselves are measured by `npm run bench:pipeline` (p99 and the longest stall while a job runs).
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SpeechRegion } from '../../../server/engines/types';
import { makeLongSpeechWav } from '../../fixtures/media';
import { createHarness, type Harness } from '../../server/harness';
import { newUser, type TestUser } from '../../server/projects/projects-fixtures';
import { typedClient } from '../../server/typed-client';

let h: Harness;
let u: TestUser;

beforeAll(async () => {
  h = await createHarness();
  u = await newUser(h, 'busy');
}, 120_000);
afterAll(async () => {
  await h?.close();
});

/** The clips' spans cut into pieces of at most 5 s, like segments after the VAD. */
function regionsOf(spans: Array<{ start: number; end: number }>): SpeechRegion[] {
  return spans.flatMap((s) => {
    const n = Math.ceil((s.end - s.start) / 5);
    return Array.from({ length: n }, (_, i) => ({ start: s.start + ((s.end - s.start) * i) / n, end: s.start + ((s.end - s.start) * (i + 1)) / n }));
  });
}

describe('the API while speaker detection runs', () => {
  it('keeps its event loop free and answers every request', async () => {
    const { wav, spans } = await makeLongSpeechWav(300);
    const regions = regionsOf(spans);
    expect(regions.length).toBeGreaterThan(50);
    const diar = h.deps.engines.diarization;
    await diar.init?.();

    let running = true;
    const statuses: number[] = [];
    const requests = (async () => {
      while (running) {
        statuses.push((await typedClient(h, u.token).GET('/api/users/current')).response.status);
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const before = performance.eventLoopUtilization();
    const result = await diar.diarize(wav, regions);
    const elu = performance.eventLoopUtilization(before);
    running = false;
    await requests;

    expect(result.labels).toHaveLength(regions.length);
    // Busy under half of the time (diarization on the event loop would keep it busy nearly all of it).
    expect(elu.utilization).toBeLessThan(0.5);
    expect(statuses.length).toBeGreaterThan(5);
    expect(statuses.every((s) => s === 200)).toBe(true);
  }, 300_000);
});
