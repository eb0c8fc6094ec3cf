// `npm run bench`: the figures of the web app. Pipeline figures: `npm run bench:pipeline`.
//   1. API: GET /api/settings and GET /api/users/current, 50 connections for 10 s each (requests/s, p99).
//   2. Web: gzipped size of the standalone build's initial JavaScript.
//   3. Editor: time to interactive with 1,000 segments and scroll frame times, in Chromium.
import { runApiBench } from './api';
import { runEditorBench } from './editor';
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
process.exit(0);
