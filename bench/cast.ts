// Cast recognition benchmark (`npm run bench:cast`, issue 31 part 5): how often a speaker is recognised as the
// right cast member and how often as a wrong one, at the threshold of server/domains/cast/match.ts.
// Voices: the LibriVox reader of pocketsphinx-testdata (five readings, each a separate clip), the speaker of its
// "cards" recordings (two clips of joined recordings), its other single recordings (numbers, tidigits, go forward),
// espeak-ng voices (each saying two different texts) and festival's voice (two texts). Each clip is measured like a
// project's speaker (pauses removed, server/engines/builtin/voice-profile.ts). A true pair: two clips of one voice;
// a false pair: clips of two voices (pairs between the single recordings, whose readers are unknown, are left out).
// Printed: the true match rate (true pairs under the threshold), the false match rate (false pairs under it),
// the same at other thresholds, and the closest false pairs. Options: --json.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VoiceProfile } from '../contract/schemas/voice-preset';
import { voiceProfile } from '../server/engines/builtin/voice-profile';
import { CAST_MATCH_THRESHOLD, profileDistance } from '../server/domains/cast/match';

const DATA = '/usr/share/pocketsphinx/test/data';
const json = process.argv.includes('--json');
const dir = mkdtempSync(join(tmpdir(), 'bench-cast-'));

const TEXTS = [
  'The committee met on Tuesday to talk about the new bridge across the river, and most of them were in favour of it.',
  'She opened the window, looked at the garden for a long while, and then went back to the letter she had started.',
];

interface Clip { voice: string; name: string; known: boolean; inputs: Array<{ path: string; raw?: boolean }> }

const clips: Clip[] = [];
for (const id of ['0870', '0880', '0890', '0920', '0930']) {
  clips.push({ voice: 'librivox', name: `librivox-${id}`, known: true, inputs: [{ path: `${DATA}/librivox/sense_and_sensibility_01_austen_64kb-${id}.wav` }] });
}
clips.push({ voice: 'cards', name: 'cards-1', known: true, inputs: ['001', '002', '003'].map((n) => ({ path: `${DATA}/cards/${n}.wav` })) });
clips.push({ voice: 'cards', name: 'cards-2', known: true, inputs: ['004', '005'].map((n) => ({ path: `${DATA}/cards/${n}.wav` })) });
for (const n of ['numbers', 'tidigits/dhd.2934z', 'goforward']) {
  clips.push({ voice: n, name: n, known: false, inputs: [{ path: `${DATA}/${n}.raw`, raw: true }] });
}
const ESPEAK = ['en-us', 'en+m3', 'en+m7', 'en+f2', 'en+f4', 'en-gb-x-rp', 'en+Andy', 'en+Annie'];
for (const v of ESPEAK) {
  TEXTS.forEach((t, i) => {
    const out = join(dir, `espeak-${v}-${i}.wav`);
    execFileSync('espeak-ng', ['-v', v, '-w', out, t]);
    clips.push({ voice: `espeak:${v}`, name: `espeak:${v}#${i}`, known: true, inputs: [{ path: out }] });
  });
}
TEXTS.forEach((t, i) => {
  const txt = join(dir, `festival-${i}.txt`);
  writeFileSync(txt, t);
  const out = join(dir, `festival-${i}.wav`);
  try {
    execFileSync('text2wave', [txt, '-o', out], { stdio: 'ignore' });
    clips.push({ voice: 'festival', name: `festival#${i}`, known: true, inputs: [{ path: out }] });
  } catch {
    /* festival not installed: left out */
  }
});

/** 16 kHz mono float samples of the clip's recordings one after another, pauses removed (what a speaker's profile is measured on). */
function speech(c: Clip): Float32Array {
  const args = ['-v', 'error'];
  for (const i of c.inputs) args.push(...(i.raw ? ['-f', 's16le', '-ar', '16000', '-ac', '1'] : []), '-i', i.path);
  const n = c.inputs.length;
  const concat = `${Array.from({ length: n }, (_, k) => `[${k}:a]aresample=16000,aformat=channel_layouts=mono[a${k}];`).join('')}${Array.from({ length: n }, (_, k) => `[a${k}]`).join('')}concat=n=${n}:v=0:a=1,silenceremove=stop_periods=-1:stop_duration=0.25:stop_threshold=-40dB[out]`;
  const out = join(dir, `${c.name.replace(/[^a-z0-9]+/gi, '_')}.f32`);
  execFileSync('ffmpeg', [...args, '-filter_complex', concat, '-map', '[out]', '-f', 'f32le', '-ar', '16000', '-ac', '1', '-y', out]);
  const b = readFileSync(out);
  return new Float32Array(b.buffer, b.byteOffset, b.length / 4);
}

const measured: Array<Clip & { profile: VoiceProfile }> = [];
for (const c of clips) {
  const p = voiceProfile(speech(c), 16000);
  if (p) measured.push({ ...c, profile: p });
  else if (!json) console.log(`(no profile for ${c.name})`);
}

const truePairs: number[] = [];
const falsePairs: Array<{ d: number; a: string; b: string }> = [];
const synthetic = (c: Clip) => c.voice.startsWith('espeak:') || c.voice === 'festival';
/** The pairs by kind: two recordings of people, a person and a synthetic voice, two synthetic voices. */
const byKind: Record<'people' | 'mixed' | 'synthetic', { same: number[]; other: number[] }> = {
  people: { same: [], other: [] }, mixed: { same: [], other: [] }, synthetic: { same: [], other: [] },
};
for (let i = 0; i < measured.length; i++) {
  for (let j = i + 1; j < measured.length; j++) {
    const a = measured[i]!;
    const b = measured[j]!;
    if (!a.known && !b.known) continue;
    const d = profileDistance(a.profile, b.profile);
    if (a.voice === b.voice) truePairs.push(d);
    else falsePairs.push({ d, a: a.name, b: b.name });
    const kind = synthetic(a) && synthetic(b) ? 'synthetic' : synthetic(a) || synthetic(b) ? 'mixed' : 'people';
    byKind[kind][a.voice === b.voice ? 'same' : 'other'].push(d);
  }
}
const rate = (xs: number[], t: number) => (xs.length ? xs.filter((d) => d < t).length / xs.length : 0);
const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
const sweep = [0.5, 0.75, 1, 1.25, 1.5, 2].map((t) => ({
  threshold: t, true_match: rate(truePairs, t), false_match: rate(falsePairs.map((p) => p.d), t),
}));
const result = {
  threshold: CAST_MATCH_THRESHOLD,
  clips: measured.length,
  true_pairs: truePairs.length,
  false_pairs: falsePairs.length,
  true_match_rate: rate(truePairs, CAST_MATCH_THRESHOLD),
  false_match_rate: rate(falsePairs.map((p) => p.d), CAST_MATCH_THRESHOLD),
  sweep,
  by_kind: Object.fromEntries(Object.entries(byKind).map(([k, x]) => [k, {
    same_pairs: x.same.length, other_pairs: x.other.length,
    true_match_rate: rate(x.same, CAST_MATCH_THRESHOLD), false_match_rate: rate(x.other, CAST_MATCH_THRESHOLD),
  }])),
  closest_false: [...falsePairs].sort((x, y) => x.d - y.d).slice(0, 5).map((p) => ({ ...p, d: Math.round(p.d * 100) / 100 })),
  true_distances: [...truePairs].sort((x, y) => x - y).map((d) => Math.round(d * 100) / 100),
  profiles: Object.fromEntries(measured.map((m) => [m.name, m.profile])),
};
rmSync(dir, { recursive: true, force: true });
if (json) console.log(JSON.stringify(result, null, 2));
else {
  console.log(`${result.clips} clips, ${result.true_pairs} same-voice pairs, ${result.false_pairs} different-voice pairs`);
  console.log(`threshold ${CAST_MATCH_THRESHOLD}: true match ${pct(result.true_match_rate)}, false match ${pct(result.false_match_rate)}`);
  for (const s of sweep) console.log(`  at ${s.threshold}: true ${pct(s.true_match)}  false ${pct(s.false_match)}`);
  for (const [k, x] of Object.entries(result.by_kind)) {
    console.log(`  ${k}: ${x.same_pairs} same-voice pairs, true ${pct(x.true_match_rate)}; ${x.other_pairs} different, false ${pct(x.false_match_rate)}`);
  }
  console.log('same-voice distances:', result.true_distances.join(' '));
  console.log('closest different-voice pairs:', result.closest_false.map((p) => `${p.a}~${p.b} ${p.d}`).join(', '));
}
