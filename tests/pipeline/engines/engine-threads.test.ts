// The engines' worker threads under cancellation: a thread running onnxruntime (the VAD) is never terminated
// mid-call. Before this was so, aborting a detection at a random moment killed the whole process within a few tries
// ('terminate called after throwing an instance of Napi::Error', exit 134), and so did exiting while one ran.
// The risky part runs in a child process so that a crash fails the test instead of ending the runner.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { makeLongSpeechWav } from '../../fixtures/media';

const ROOT = join(import.meta.dirname, '../../..');

describe('engine threads', () => {
  it('aborting the VAD at random moments, and stopping its thread mid-detection, never ends the process', async () => {
    // About 90 s of speech: a detection takes long enough to be cut at any point.
    const { wav } = await makeLongSpeechWav(90);
    const runs = 25;
    const r = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'engine-threads-child.ts'), wav, '20261127', String(runs)], {
      cwd: ROOT, env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: 'skip' }, timeout: 240_000,
    }).catch((e: { code?: number; signal?: string; stdout?: string; stderr?: string }) => {
      throw new Error(`the child process ended with ${e.code ?? e.signal}:\n${(e.stdout ?? '').slice(-1500)}\n${(e.stderr ?? '').slice(-1500)}`);
    });
    const lines = r.stdout.trim().split('\n');
    expect(lines.filter((l) => /^run \d+ abort at \d+ ms: (AbortError|done)$/.test(l))).toHaveLength(runs);
    // Most runs were cut mid-detection (the rest ended before their abort).
    expect(lines.filter((l) => l.endsWith('AbortError')).length).toBeGreaterThan(runs / 2);
    expect(lines).toContain('stopped: AbortError, threads left {"native":0,"plain":0,"running":0}');
    expect(lines.at(-1)).toBe('survived');
    expect(r.stderr).not.toMatch(/terminate called|Napi::Error/);
  }, 300_000);
});
