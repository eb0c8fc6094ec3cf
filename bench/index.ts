// `npm run bench`: the figures of the web app. Pipeline figures: `npm run bench:pipeline`.
//   1. API: GET /api/settings and GET /api/users/current, 50 connections for 10 s each (requests/s, p99).
//   2. Web: gzipped size of the standalone build's initial JavaScript.
//   3. Editor: time to interactive with 1,000 segments and scroll frame times, in Chromium.
//   4. Timeline: a 3-hour project with 10,000 segments: peaks computed from 3 h of audio, time to an interactive
//      timeline, frame times while scrolling and dragging, in Chromium.
//   5. Tools: 200 short tools started from an 800 MB process, directly and through the tool spawner.
//   6. Stalls: per request path that loops over user-sized input (Dictionary CSV import, SRT parsing, dictionary
//      checks), size, time and the longest event-loop stall; /api/health p99 during the import (bench/stalls.ts).
//   7. Load (only when asked: `npm run bench load`): 100 clients on the read paths of the scale-out mode,
//      idle and while two pipeline jobs run (needs PostgreSQL and Redis).
import { runApiBench } from './api';
import { runEditorBench } from './editor';
import { runLoadBench } from './load';
import { runStallsBench } from './stalls';
import { runTimelineBench } from './timeline';
import { runToolsBench } from './tools';
import { runWebBench } from './web';

const only = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const want = (name: string) => only.length === 0 || only.includes(name);

if (want('api')) {
  console.log('== API');
  await runApiBench();
}
if (want('web')) {
  console.log('== Web bundle');
  runWebBench({ build: true });
}
if (want('editor')) {
  console.log('== Editor');
  await runEditorBench();
}
if (want('timeline')) {
  console.log('== Timeline');
  await runTimelineBench();
}
if (want('tools')) {
  console.log('== Tools (starting processes from a large one)');
  await runToolsBench();
}
if (want('stalls')) {
  console.log('== Stalls (event loop held by user-sized input)');
  await runStallsBench();
}
if (only.includes('load')) {
  console.log('== Load (scale-out)');
  await runLoadBench(process.argv.slice(2).filter((a) => a.startsWith('--')));
}
process.exit(0);
