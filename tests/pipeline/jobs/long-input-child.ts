// Child process of long-input.test.ts, started with a low heap limit: the chunked analysis of a long WAV (VAD,
// segmenting, speaker detection: the built-in engines, which read the audio in chunks in worker threads).
// Prints one JSON line with what it found and the largest heap it saw.
import { getHeapStatistics } from 'node:v8';
import { createDspDiarization } from '../../../server/engines/builtin/dsp-diarization';
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import { segmentRegions } from '../../../server/domains/projects/stages/transcribe-segments';

const wav = process.argv[2]!;
let peakHeap = 0;
const sample = () => {
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
};
const timer = setInterval(sample, 50);
const vad = createSileroVad();
await vad.init?.();
const regions = segmentRegions(await vad.detect(wav));
sample();
const diar = createDspDiarization();
const { labels } = await diar.diarize(wav, regions);
sample();
clearInterval(timer);
console.log(JSON.stringify({
  regions: regions.length,
  speechSec: regions.reduce((s, r) => s + r.end - r.start, 0),
  labels: labels.length,
  speakers: new Set(labels).size,
  peakHeapMb: Math.round(peakHeap / 1e6),
  // ru_maxrss is in kilobytes: the largest resident set of this process, its worker threads included.
  maxRssMb: Math.round(process.resourceUsage().maxRSS / 1e3),
  heapLimitMb: Math.round(getHeapStatistics().heap_size_limit / 1e6),
}));
process.exit(0);
