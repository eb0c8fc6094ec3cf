// Starting tools from a large process (`npm run bench tools`): a process holding about 800 MB (as the server does
// during a long job) starts 200 short tools, 4 at a time, directly (fork of this process) and through the tool
// spawner (server/media/spawner.ts). Prints the time taken and the event loop's delay meanwhile, both ways.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { run as runTool, ToolLimits, withToolLimits } from '../server/media/run';
import { ToolSpawner } from '../server/media/spawner';

export async function runToolsBench(log: (l: string) => void = (l) => console.log(l)): Promise<void> {
  const spawner = new ToolSpawner({ enabled: true });
  await spawner.start(); // while small, as the server does at start-up
  const ballast: Buffer[] = [];
  for (let i = 0; i < 700; i++) ballast.push(Buffer.alloc(1 << 20, 1));
  for (const through of [false, true]) {
    // Directly: tools of no app (no spawner); through: an app's, with its spawner.
    const limits = new ToolLimits({ spawner: through ? spawner : null });
    const run = (cmd: string, args: string[]) => withToolLimits(limits, () => runTool(cmd, args));
    await run('true', []);
    const loop = monitorEventLoopDelay({ resolution: 1 });
    loop.enable();
    const t0 = performance.now();
    await Promise.all(Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 50; i++) await run('true', []);
    }));
    const ms = performance.now() - t0;
    loop.disable();
    const rss = Math.round(process.memoryUsage().rss / 1048576);
    log(`  ${through ? 'tool spawner' : 'directly    '} (this process ${rss} MB): 200 tools in ${ms.toFixed(0)} ms; event loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, longest ${(loop.max / 1e6).toFixed(1)} ms`);
  }
  ballast.length = 0;
  spawner.stop();
}
