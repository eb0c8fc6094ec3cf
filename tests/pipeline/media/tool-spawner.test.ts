// Tools start from the app's tool spawner (ToolLimits.spawner), a small helper process, so starting one never forks
// the large server process; what a caller sees (output, errors, timeouts, aborts, niceness) is the same as a direct
// start (outside any app, or with the spawner off).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engineThreadEnv, run, ToolLimits, withToolLimits, type RunOptions } from '../../../server/media/run';
import { ToolSpawner } from '../../../server/media/spawner';
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';

const dir = mkdtempSync(join(tmpdir(), 'tool-spawner-'));
const spawner = new ToolSpawner({ enabled: true });
const app = new ToolLimits({ spawner });
afterAll(() => {
  spawner.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** run() in the app's scope: its tools start from its spawner. */
const appRun = (cmd: string, args: string[], opts?: RunOptions) => withToolLimits(app, () => run(cmd, args, opts));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The parent process id of a tool started by run() in the scope of `limits` (null: outside any app). */
async function parentOfTool(limits: ToolLimits | null = app): Promise<number> {
  const tool = () => run('sh', ['-c', 'echo $PPID']);
  return Number((await (limits ? withToolLimits(limits, tool) : tool())).stdout.trim());
}

async function waitFor(cond: () => boolean, ms: number): Promise<boolean> {
  for (let waited = 0; waited < ms; waited += 50) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return cond();
}

/** Everything a caller can observe of run(): results and error messages of each kind. */
async function observed(run: (cmd: string, args: string[], opts?: RunOptions) => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const ok = await run('sh', ['-c', 'printf "out \\303\\251"; echo warn >&2; cat'], { input: Buffer.from('from stdin') });
  seen.push(JSON.stringify(ok));
  const errs = [
    run('no-such-tool-anywhere', []),
    run('sh', ['-c', 'echo "bad input" >&2; exit 3']),
    run('sleep', ['5'], { timeoutMs: 150 }),
    run('sleep', ['5'], { signal: AbortSignal.timeout(150) }),
    run('sh', ['-c', 'kill -TERM $$']),
  ].map((p) => p.then(() => 'resolved', (e: Error & { reason?: string }) => `${e.reason}: ${e.message}`));
  seen.push(...(await Promise.all(errs)));
  return seen;
}

describe('tool spawner', () => {
  beforeAll(async () => {
    await spawner.start();
  });

  it('starts tools from the helper process, not from this one', async () => {
    const helper = spawner.pid;
    expect(helper).toBeGreaterThan(0);
    expect(helper).not.toBe(process.pid);
    expect(await parentOfTool()).toBe(helper);
  });

  it('gives the same results and errors as starting the tool directly', async () => {
    const through = await observed(appRun);
    // Outside any app, tools start directly.
    expect(await parentOfTool(null)).toBe(process.pid);
    expect(await observed(run)).toEqual(through);
    expect(through[0]).toBe(JSON.stringify({ stdout: 'out é' + 'from stdin', stderr: 'warn\n', code: 0 }));
    expect(through.slice(1)).toEqual([
      'spawn: no-such-tool-anywhere is not installed (command not found)',
      'exit: sh failed (exit 3): bad input',
      'timeout: sleep timed out after 150 ms',
      'aborted: sleep aborted',
      'exit: sh failed (signal SIGTERM)',
    ]);
  });

  it('kills the tool itself on an abort', async () => {
    const pidFile = join(dir, 'abort.pid');
    const ac = new AbortController();
    const p = appRun('sh', ['-c', `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 30`], { signal: ac.signal });
    expect(await waitFor(() => existsSync(pidFile), 5000)).toBe(true);
    const pid = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(pid)).toBe(true);
    ac.abort();
    await expect(p).rejects.toThrow('sleep aborted'.replace('sleep', 'sh'));
    expect(await waitFor(() => !alive(pid), 5000)).toBe(true);
  });

  it('starts the tools of worker threads (the engines\' threads) too', async () => {
    // A thread started in the app's scope is told its spawner (engineThreadEnv, as server/engines/builtin/threads.ts
    // does); it connects in the background on its first tool and starts the next ones from the helper.
    const code = `
      const { parentPort, workerData } = require('node:worker_threads');
      (async () => {
        (await import('tsx/esm/api')).register();
        const { run } = await import(workerData.runTs);
        const parents = [];
        for (let i = 0; i < 3; i++) {
          parents.push(Number((await run('sh', ['-c', 'echo $PPID'])).stdout.trim()));
          await new Promise((r) => setTimeout(r, 100));
        }
        parentPort.postMessage(parents);
      })().catch((e) => parentPort.postMessage(String(e)));`;
    const env = withToolLimits(app, () => engineThreadEnv());
    const w = new Worker(code, { eval: true, env, workerData: { runTs: pathToFileURL(join(process.cwd(), 'server/media/run.ts')).href } });
    const parents = await new Promise<unknown>((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    await w.terminate();
    expect(Array.isArray(parents) ? parents.at(-1) : parents).toBe(spawner.pid);
  });

  it('fails the tools in flight clearly when the helper dies, and a new one takes over', async () => {
    const pidFile = join(dir, 'dies.pid');
    const p = appRun('sh', ['-c', `echo $$ > ${pidFile}.tmp && mv ${pidFile}.tmp ${pidFile} && exec sleep 30`]);
    expect(await waitFor(() => existsSync(pidFile), 5000)).toBe(true);
    const tool = Number(readFileSync(pidFile, 'utf8'));
    const old = spawner.pid!;
    process.kill(old, 'SIGKILL');
    await expect(p).rejects.toThrow('sh could not be started: the tool spawner stopped while the tool ran');
    // Tools still run meanwhile (directly), and the next start brings a new helper.
    expect(await parentOfTool()).toBe(process.pid);
    await spawner.start();
    const fresh = spawner.pid;
    expect(fresh).not.toBe(old);
    expect(await parentOfTool()).toBe(fresh);
    process.kill(tool, 'SIGKILL'); // the orphan of the killed helper (SIGKILL gave it no chance to stop it)
  });

  it('stops with the process that started it, and stops its tools', async () => {
    const pidFile = join(dir, 'orphan.pid');
    const child = spawn(process.execPath, ['--import', 'tsx', 'tests/pipeline/media/tool-spawner-child.ts', pidFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    expect(await waitFor(() => /spawner \d+/.test(out) && existsSync(pidFile), 20_000)).toBe(true);
    const helper = Number(/spawner (\d+)/.exec(out)![1]);
    const tool = Number(readFileSync(pidFile, 'utf8'));
    expect(alive(helper) && alive(tool)).toBe(true);
    child.kill('SIGKILL');
    expect(await waitFor(() => !alive(helper) && !alive(tool), 10_000)).toBe(true);
  });

  it('can be turned off (TOOL_SPAWNER=0)', async () => {
    const off = new ToolSpawner({ enabled: false });
    await off.start();
    expect(off.pid).toBeNull();
    expect(await parentOfTool(new ToolLimits({ spawner: off }))).toBe(process.pid);
    expect(withToolLimits(new ToolLimits({ spawner: off }), () => engineThreadEnv()).DUBBING_TOOL_SPAWNER).toBeUndefined();
  });

  it('stops with its app: its tools then start directly', async () => {
    const own = new ToolSpawner({ enabled: true });
    const limits = new ToolLimits({ spawner: own });
    await own.start();
    const pid = own.pid!;
    expect(await parentOfTool(limits)).toBe(pid);
    own.stop();
    expect(own.pid).toBeNull();
    expect(await waitFor(() => !alive(pid), 5000)).toBe(true);
    expect(await parentOfTool(limits)).toBe(process.pid);
    expect(own.pid).toBeNull(); // not started again
    // Each app has its own: stopping this one left the other running.
    expect(spawner.pid).toBeGreaterThan(0);
    expect(await parentOfTool()).toBe(spawner.pid);
  });
});
