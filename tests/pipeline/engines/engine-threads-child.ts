// Child of engine-threads.test.ts (a crash here must not take the test runner down): runs the Silero VAD in its
// worker thread on a long file and aborts it at seeded random moments, then stops the threads while a detection
// runs, as a shutdown does, and exits. The abort moments are drawn from 2% to 92% of a whole detection's time here
// (a fixed 20-820 ms range fell mostly after the end on a fast machine). Prints one line per run and 'survived' at the end.
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import { stopThreads, threadCounts } from '../../../server/engines/builtin/threads';

const [wav, seedArg, runsArg] = process.argv.slice(2);
let state = Number(seedArg) >>> 0;
const rand = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 4294967296;
};
const vad = createSileroVad();
// the moments are drawn within a detection's length on this machine (its thread and model started by the first)
await vad.detect(wav!);
const t0 = performance.now();
await vad.detect(wav!);
const full = performance.now() - t0;
for (let i = 0; i < Number(runsArg); i++) {
  const ac = new AbortController();
  const delay = Math.floor(full * (0.02 + rand() * 0.9));
  const t = setTimeout(() => ac.abort('cancel'), delay);
  const outcome = await vad.detect(wav!, { signal: ac.signal }).then(
    () => 'done',
    (e: Error) => e.name,
  );
  clearTimeout(t);
  console.log(`run ${i} abort at ${delay} ms: ${outcome}`);
}
// A shutdown while a detection runs: the threads end the safe way, then the process exits.
const running = vad.detect(wav!).then(() => 'done', (e: Error) => e.name);
await new Promise((r) => setTimeout(r, full / 2));
await stopThreads();
console.log(`stopped: ${await running}, threads left ${JSON.stringify(threadCounts())}`);
console.log('survived');
process.exit(0);
