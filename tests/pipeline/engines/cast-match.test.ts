// Cast recognition on real voices (issue 31, part 5): speakers measured as the determine_speakers stage measures
// them (voice-activity regions of the recording, cut and profiled by server/engines/builtin/voice-sample.ts), then
// matched to a cast by server/domains/cast/match.ts. The LibriVox reader of pocketsphinx-testdata kept from two
// readings is recognised in three others; espeak-ng and festival voices are not taken for him, nor he for them;
// two speakers of one project never get the same member. The rates over many pairs: bench/cast.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VoiceProfile } from '../../../contract/schemas/voice-preset';
import { CAST_MATCH_THRESHOLD, matchCast, mergeProfiles, profileDistance } from '../../../server/domains/cast/match';
import { createSileroVad } from '../../../server/engines/builtin/silero-vad';
import { speechSample } from '../../../server/engines/builtin/voice-sample';
import { LIBRIVOX_DIR } from '../../fixtures/media';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'cast-match-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const reading = (id: string) => join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`);
const TEXT_A = 'The committee met on Tuesday to talk about the new bridge across the river, and most of them were in favour of it.';
const TEXT_B = 'She opened the window, looked at the garden for a long while, and then went back to the letter she had started.';

/** The recordings one after another as one 16 kHz mono WAV. */
async function joined(name: string, inputs: string[]): Promise<string> {
  const out = join(dir, `${name}.wav`);
  const n = inputs.length;
  const filter = `${inputs.map((_, k) => `[${k}:a]aresample=16000,aformat=channel_layouts=mono[a${k}];`).join('')}${inputs.map((_, k) => `[a${k}]`).join('')}concat=n=${n}:v=0:a=1[out]`;
  await run('ffmpeg', ['-v', 'error', ...inputs.flatMap((i) => ['-i', i]), '-filter_complex', filter, '-map', '[out]', '-ar', '16000', '-ac', '1', '-y', out]);
  return out;
}

async function espeak(name: string, voice: string, text: string): Promise<string> {
  const out = join(dir, `${name}-raw.wav`);
  await run('espeak-ng', ['-v', voice, '-w', out, text]);
  return joined(name, [out]);
}

async function festival(name: string, text: string): Promise<string> {
  const txt = join(dir, `${name}.txt`);
  writeFileSync(txt, text);
  const out = join(dir, `${name}-raw.wav`);
  await run('text2wave', [txt, '-o', out]);
  return joined(name, [out]);
}

/** The speaker's profile as the stage measures it: the speech regions, at most 60 s. */
async function profileOf(wav: string): Promise<VoiceProfile> {
  const vad = createSileroVad();
  await vad.init?.();
  const regions = await vad.detect(wav);
  const s = await speechSample({ wav, ranges: regions, keepSec: 60, trimToKeep: true, gapSec: 0, out: `${wav}.sample.wav`, profileSec: 60 });
  expect(s.profile, wav).not.toBeNull();
  return s.profile!;
}

const p: Record<string, VoiceProfile> = {};
beforeAll(async () => {
  const [kept, again, female, male, fest, festAgain] = await Promise.all([
    joined('reader-kept', [reading('0870'), reading('0880')]),
    joined('reader-again', [reading('0890'), reading('0920'), reading('0930')]),
    espeak('espeak-f2', 'en+f2', TEXT_A),
    espeak('espeak-m3', 'en+m3', TEXT_B),
    festival('festival-a', TEXT_A),
    festival('festival-b', TEXT_B),
  ]);
  for (const [k, wav] of Object.entries({ kept, again, female, male, fest, festAgain })) p[k] = await profileOf(wav);
}, 120_000);

describe('recognising a cast member by the measured voice', () => {
  it('recognises the LibriVox reader kept from two readings in three others', () => {
    expect(profileDistance(p.kept!, p.again!)).toBeLessThan(CAST_MATCH_THRESHOLD);
    const m = matchCast([{ id: 'SPEAKER_0', profile: p.again! }], [{ id: 'reader', profile: p.kept! }, { id: 'synthetic', profile: p.fest! }]);
    expect([...m]).toEqual([['SPEAKER_0', { memberId: 'reader', distance: expect.any(Number) }]]);
  });

  it('does not take synthetic voices for the reader, nor the reader for them', () => {
    for (const k of ['female', 'male', 'fest'] as const) expect(profileDistance(p.kept!, p[k]!), k).toBeGreaterThan(CAST_MATCH_THRESHOLD);
    const m = matchCast(
      [{ id: 'SPEAKER_0', profile: p.female! }, { id: 'SPEAKER_1', profile: p.again! }],
      [{ id: 'reader', profile: p.kept! }, { id: 'festival', profile: p.fest! }],
    );
    expect([...m.keys()]).toEqual(['SPEAKER_1']);
    expect(m.get('SPEAKER_1')!.memberId).toBe('reader');
  });

  it('recognises festival\'s voice saying another text', () => {
    expect(profileDistance(p.fest!, p.festAgain!)).toBeLessThan(CAST_MATCH_THRESHOLD);
  });

  it('gives one member to one speaker: two speakers close to the reader, only the closer is him', () => {
    const m = matchCast(
      [{ id: 'SPEAKER_0', profile: p.again! }, { id: 'SPEAKER_1', profile: { ...p.kept!, median_hz: p.kept!.median_hz * 1.01 } }],
      [{ id: 'reader', profile: p.kept! }],
    );
    expect([...m]).toEqual([['SPEAKER_1', { memberId: 'reader', distance: expect.any(Number) }]]);
  });

  it('keeps too little speech unrecognised, and a merged profile weighs both recordings', () => {
    expect(matchCast([{ id: 'S', profile: { ...p.again!, speech_sec: 1 } }], [{ id: 'reader', profile: p.kept! }]).size).toBe(0);
    const merged = mergeProfiles(p.kept!, p.again!);
    expect(merged.speech_sec).toBeCloseTo(p.kept!.speech_sec + p.again!.speech_sec, 1);
    expect(merged.median_hz).toBeGreaterThanOrEqual(Math.min(p.kept!.median_hz, p.again!.median_hz));
    expect(merged.median_hz).toBeLessThanOrEqual(Math.max(p.kept!.median_hz, p.again!.median_hz));
    expect(profileDistance(merged, p.again!)).toBeLessThan(profileDistance(p.kept!, p.again!));
  });
});
