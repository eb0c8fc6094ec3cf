// The merge's soundtrack at a given length (`npm run bench:merge -- --seconds=600`): the single-pass
// mix (mixVoiceAndBackground), the chunked full mix, and the chunked mix after one segment (2.5 s in the middle) of the
// voice changed (issue 30: a re-dub re-encodes only the chunks it touches). Real speech (LibriVox) over pink noise.
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir, loadavg } from 'node:os';
import { mixVoiceAndBackground, runToolOutput, synthAudio } from '../server/media/ffmpeg';
import { writeGainCurveWav } from '../server/media/gate';
import { readWav, writeWav } from '../server/media/wav';
import { LocalStorage } from '../server/storage/local';
import { mixInChunks } from '../server/domains/projects/stages/mix-chunks';
import type { ProjectStageContext } from '../server/domains/projects/stages/common';
const arg = process.argv.find((a) => a.startsWith('--seconds='));
const SR = 48000;
const DUR = arg ? Number(arg.slice('--seconds='.length)) : 600;
const d = mkdtempSync(join(tmpdir(), 'micro-'));
const voice = join(d, 'v.wav'), bg = join(d, 'b.wav'), gain = join(d, 'g.wav');
await runToolOutput('ffmpeg', [
  '-nostdin','-loglevel','error','-y','-stream_loop','-1','-i','/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav','-t',String(DUR),'-ar','48000','-ac','1','-c:a','pcm_s16le',voice], {});
await synthAudio(bg, { seconds: DUR, source: 'anoisesrc=color=pink:amplitude=0.05:seed=11', sampleRate: SR, channels: 2 });
await writeGainCurveWav(gain, [{ t: 0, gain: 1.2 }, { t: 300, gain: 0.8 }, { t: 600, gain: 1 }], DUR);
const ctx = { project: { id: 'p' }, deps: { storage: new LocalStorage(join(d, 's')) }, tmp: d, signal: new AbortController().signal, log: (m: string, x: unknown) => console.log(m, x) } as unknown as ProjectStageContext;
const o = (v: string, out: string) => ({ voice: v, background: bg, out, durationSec: DUR, voiceGain: gain, loudness: { I: -16, TP: -2 } });
let t = performance.now();
await mixVoiceAndBackground({ ...o(voice, join(d, 'single.m4a')), measureOutput: true }, { targetLufs: Promise.resolve(-16), hopSec: 0.02 });
console.log('single-pass mix (main):', ((performance.now() - t) / 1000).toFixed(2), 's; load', loadavg()[0]);
t = performance.now();
await mixInChunks(ctx, o(voice, join(d, 'full.m4a')), Promise.resolve(-16), { signal: ctx.signal, hopSec: 0.02 });
console.log('chunked full mix:', ((performance.now() - t) / 1000).toFixed(2), 's; load', loadavg()[0]);
const v = readWav(voice).channelData[0]!;
const at = Math.floor(DUR / 2);
for (let i = at * SR; i < (at + 2.5) * SR; i++) v[i] = v[i + 7 * SR]! * 0.9;
const v2 = join(d, 'v2.wav'); writeWav(v2, [v], SR);
t = performance.now();
const r = await mixInChunks(ctx, o(v2, join(d, 'redub.m4a')), Promise.resolve(-16), { signal: ctx.signal, hopSec: 0.02 });
console.log('incremental one-segment mix:', ((performance.now() - t) / 1000).toFixed(2), 's; encoded', r.encoded, 'of', r.chunks, '; load', loadavg()[0]);

rmSync(d, { recursive: true, force: true });
