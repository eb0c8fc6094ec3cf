// The customer's words reach the decoder (issue 33): real pocketsphinx on sentences synthesised with festival's
// natural HTS voice (espeak-ng when text2wave is not installed), each saying a name none of its dictionary and model
// knows. Without the names as terms none is recognised; with them the decoder's dictionary has their pronunciations
// and recognises them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildTermClip, namesRecognised, TERM_SENTENCES } from '../../../bench/asr';
import { createPocketsphinxAsr } from '../../../server/engines/builtin/pocketsphinx';
import { which } from '../../../server/engines/builtin/util';

const dir = mkdtempSync(join(tmpdir(), 'asr-terms-rec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const asr = createPocketsphinxAsr();

describe('pocketsphinx with the customer\'s words', () => {
  it('recognises place names given as terms, and not without them', async () => {
    // with the natural voice 9 of the bench's 10 names are recognised (espeak-ng's robotic voice: 6); 4 of them here
    const festival = which('text2wave') !== null;
    const picked = festival ? ['Nuvexa', 'Tromso', 'Kalvaro', 'Lumora'] : ['Ouarzazate', 'Tromso', 'Kalvaro'];
    const sentences = TERM_SENTENCES.filter((s) => picked.includes(s.name));
    const clip = join(dir, 'clip.wav');
    const regions = await buildTermClip(dir, clip, sentences);
    const [before, after] = await Promise.all([
      asr.transcribe(clip, regions, 'en', { parallel: 1 }),
      // a multi-word term and a word the model has are split and added as needed
      asr.transcribe(clip, regions, 'en', { parallel: 1, terms: ['Ouarzazate airport', 'Tromsø', 'Kalvaro', 'Lumora', 'Nuvexa'] }),
    ]);
    expect(namesRecognised(before, regions, sentences).filter(Boolean)).toHaveLength(0);
    const hits = namesRecognised(after, regions, sentences);
    expect(hits.filter(Boolean).length, after.map((s) => s.text).join(' | ')).toBeGreaterThanOrEqual(festival ? 3 : 2);
    // the term words come back with their own text (not the carrier's), with times and confidences
    const w = after.flatMap((s) => s.words).find((x) => ['ouarzazate', 'tromso', 'kalvaro', 'lumora', 'nuvexa'].includes(x.text));
    expect(w).toBeDefined();
    expect(w!.end).toBeGreaterThan(w!.start);
  }, 300_000);
});
