// The pipeline is batch work: its tools and engine threads run at PIPELINE_NICE, below the API's thread, so a
// busy worker slows other jobs rather than requests.
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lowerPriority, run, ToolLimits, withToolLimits } from '../../../server/media/run';
import { runInThread } from '../../../server/engines/builtin/threads';
import { loadConfig } from '../../../server/config';

const CLIP = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav';
// The tool waits for its stdin, which run() writes only after the priority is set: no race.
const NICE_OF_SELF = ['-c', 'read x; cut -d" " -f19 /proc/$$/stat'];

/** Niceness (field 19 of stat) of every thread of this process, by thread id. */
function threadNiceness(): Map<number, number> {
  const out = new Map<number, number>();
  for (const t of readdirSync('/proc/self/task')) {
    const s = readFileSync(join('/proc/self/task', t, 'stat'), 'utf8');
    out.set(Number(t), Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[16]));
  }
  return out;
}

describe('pipeline niceness', () => {
  it('runs CPU-slot tools at the pipeline niceness, other commands at the caller\'s', async () => {
    const base = getPriority();
    const app = new ToolLimits({ nice: 7 });
    const tool = await withToolLimits(app, () => run('sh', NICE_OF_SELF, { cpuSlot: true, input: 'go\n' }));
    expect(Number(tool.stdout.trim())).toBe(Math.max(base, 7));
    const other = await withToolLimits(app, () => run('sh', NICE_OF_SELF, { input: 'go\n' }));
    expect(Number(other.stdout.trim())).toBe(base);
    // Outside any app (no limits in scope) a tool keeps the caller's priority.
    const outside = await run('sh', NICE_OF_SELF, { cpuSlot: true, input: 'go\n' });
    expect(Number(outside.stdout.trim())).toBe(base);
    expect(getPriority()).toBe(base); // the caller itself is untouched
  });

  it('runs engine threads at the pipeline niceness and leaves the main thread alone', async () => {
    const before = threadNiceness();
    const regions = await withToolLimits(new ToolLimits({ nice: 9 }), () => runInThread<Array<{ start: number; end: number }>>('vad', { wav: CLIP, options: {} }));
    expect(regions.length).toBeGreaterThan(0);
    const after = threadNiceness();
    // The thread is kept a while after its task: it is one of the threads that were not there before.
    const fresh = [...after].filter(([tid]) => !before.has(tid)).map(([, nice]) => nice);
    expect(fresh).toContain(9);
    expect(after.get(process.pid)).toBe(before.get(process.pid));
  });

  it('never fails on a process that is gone, and reads PIPELINE_NICE within 0-19', () => {
    expect(() => lowerPriority(2 ** 22 - 1, 5)).not.toThrow();
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40) }).worker.nice).toBe(10);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40), PIPELINE_NICE: '0' }).worker.nice).toBe(0);
    expect(loadConfig({ JWT_SECRET: 'x'.repeat(40), PIPELINE_NICE: '40' }).worker.nice).toBe(19);
  });
});
