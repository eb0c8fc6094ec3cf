// `npm run demo:build` (run by `npm run setup`): makes the demo video and its cover into storage from the
// LibriVox clips of the Debian package pocketsphinx-testdata. Without them the app works, without a demo.
import { loadConfig } from '../../config';
import { createStorage } from '../../storage/index';
import { buildDemoSource, demoSpeechInstalled, DEMO_TEXTS } from './source';

const config = loadConfig();
if (!demoSpeechInstalled()) {
  console.warn(DEMO_TEXTS.notInstalled);
} else {
  const storage = createStorage(config);
  const s = await buildDemoSource({ config, storage });
  console.log(`Demo video made: ${s.durationSec.toFixed(1)} s, ${Math.round(s.sizeBytes / 1024)} KB (${s.sourceKey})`);
  (storage as { close?: () => void }).close?.();
}
