// npm run bench:lipsync — the built-in lip-sync on a clip with a real face (face-api's sample photo) and
// LibriVox speech: mouth-audio synchrony measured by the landmark detector on the OUTPUT video, without and
// with lip-sync, and seconds of processing per second of video.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFaceApiEngine } from '../server/engines/builtin/face-api';
import { createBuiltinLipsync } from '../server/engines/builtin/lipsync/engine';
import { measureMouthSync } from '../server/engines/builtin/lipsync/measure';
import { makeStillVideo, placeClips } from '../server/media/ffmpeg';
import { FACE_PHOTO, ONE_FACE_CROP } from '../tests/fixtures/face-photo';

const seconds = Number(process.env.LIPSYNC_BENCH_SECONDS ?? 10);
const dir = mkdtempSync(join(tmpdir(), 'bench-lipsync-'));
try {
  const lib = '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-';
  const voice = join(dir, 'voice.wav');
  await placeClips([{ path: `${lib}0870.wav`, offsetSec: 0.3 }, { path: `${lib}0880.wav`, offsetSec: 5.2 }], seconds, voice, { sampleRate: 16000, channels: 1 });
  const video = join(dir, 'dubbed.mp4');
  await makeStillVideo({ image: FACE_PHOTO, crop: ONE_FACE_CROP, out: video, seconds, width: 640, height: 480, audio: voice });
  const face = createFaceApiEngine();
  const engine = createBuiltinLipsync(face);
  await face.detect({ data: new Uint8Array(64 * 64 * 3), width: 64, height: 64 }); // load the runtime first
  const out = join(dir, 'lipsync.mp4');
  const t0 = performance.now();
  const r = await engine.lipsync({ video, voice, turns: [{ speaker: 'S', start: 0.3, end: seconds }], multipleSpeakers: false, outPath: out });
  const sec = (performance.now() - t0) / 1000;
  const before = await measureMouthSync(video, voice, face);
  const after = await measureMouthSync(out, voice, face);
  console.log(JSON.stringify({
    clip: `${seconds} s, 640x480, 25 fps, one face`,
    frames: r.frames, framesChanged: r.framesChanged,
    correlation_without_lipsync: Math.round(before.correlation * 1000) / 1000,
    correlation_with_lipsync: Math.round(after.correlation * 1000) / 1000,
    processing_seconds: Math.round(sec * 10) / 10,
    seconds_per_video_second: Math.round((sec / seconds) * 100) / 100,
  }, null, 2));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
