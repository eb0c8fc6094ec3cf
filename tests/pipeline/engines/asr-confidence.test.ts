// Recognition confidence (issue 28): pocketsphinx's word posteriors (-ctm, from its word lattice) are each word's
// confidence, so the quality report can flag segments recognised with low confidence.
import { describe, expect, it } from 'vitest';
import { createPocketsphinxAsr, parseCtm } from '../../../server/engines/builtin/pocketsphinx';
import { librivoxWav } from '../../fixtures/media';

describe('pocketsphinx word confidence', () => {
  it('parses the posteriors of a -ctm file by utterance and start frame', () => {
    const m = parseCtm('r0 1 0.21 0.13 but 0.120\nr0 1 0.35 0.27 mr 0.994\nr3 1 1.00 0.2 x 1.7\nbad line\n');
    expect(m.get('r0')).toEqual(new Map([[21, 0.12], [35, 0.994]]));
    expect(m.get('r3')!.get(100)).toBe(1);
  });

  it('gives every recognised word of real speech a confidence in 0..1', async () => {
    const asr = createPocketsphinxAsr();
    const segs = await asr.transcribe(librivoxWav('0870'), [{ start: 0, end: 3 }], 'en');
    const words = segs.flatMap((s) => s.words);
    expect(words.length).toBeGreaterThan(3);
    for (const w of words) {
      expect(w.confidence).toBeGreaterThanOrEqual(0);
      expect(w.confidence).toBeLessThanOrEqual(1);
    }
    // "leisure" is recognised with certainty in this clip; "but" barely
    expect(words.find((w) => w.text === 'leisure')?.confidence).toBeGreaterThan(0.9);
  }, 120_000);
});
