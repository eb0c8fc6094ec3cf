// Child of engine-threads.test.ts (a crash here must not take the test runner down): runs the Silero VAD in its
// worker thread on a long file and aborts it at seeded random moments, then stops the threads while a detection
// runs, as a shutdown does, and exits. Prints one line per run and 'survived' at the end.
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import { stopThreads, threadCounts } from '../../../server/engines/builtin/threads';

const [wav, seedArg, runsArg] = process.argv.slice(2);
let state = Number(seedArg) >>> 0;
const rand = () => {
  state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
  return state / 4294967296;
};
const vad = createSileroVad();
for (let i = 0; i < Number(runsArg); i++) {
  const ac = new AbortController();
  const delay = Math.floor(20 + rand() * 800);
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
await new Promise((r) => setTimeout(r, 300));
await stopThreads();
console.log(`stopped: ${await running}, threads left ${JSON.stringify(threadCounts())}`);
console.log('survived');
process.exit(0);
