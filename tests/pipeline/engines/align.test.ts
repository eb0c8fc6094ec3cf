// Forced alignment of given text (issue 33): the grammar builder, the tokens, the split of a text over speech
// regions, the timing by length, and pocketsphinx aligning a real LibriVox reading (with a word its dictionary lacks).
import { describe, expect, it } from 'vitest';
import {
  buildFsg, buildJsgf, createPocketsphinxAligner, distributeText, fillGaps, proportionalWords, sentences, tokenize,
} from '../../../server/engines/builtin/align';
import { librivoxWav } from '../../fixtures/media';

describe('grammar builder', () => {
  it('accepts exactly the word sequence: one transition per word, start to final', () => {
    expect(buildFsg(['he', 'was', 'not'], 'u1')).toBe(
      'FSG_BEGIN u1\nNUM_STATES 4\nSTART_STATE 0\nFINAL_STATE 3\nTRANSITION 0 1 1.0 he\nTRANSITION 1 2 1.0 was\nTRANSITION 2 3 1.0 not\nFSG_END\n',
    );
    expect(buildJsgf(["don't", 'go'])).toBe("#JSGF V1.0;\ngrammar align;\npublic <utt> = don't go;\n");
    expect(() => buildFsg([])).toThrow(/at least one word/);
    expect(() => buildFsg(['two words'])).toThrow(/not a dictionary word/);
  });

  it('tokens keep the written form and give dictionary keys', () => {
    expect(tokenize('  "Ill-disposed," he said — it’s 1999!')).toEqual([
      { text: '"Ill-disposed,"', keys: ['ill', 'disposed'] },
      { text: 'he', keys: ['he'] },
      { text: 'said', keys: ['said'] },
      { text: 'it’s', keys: ["it's"] },
      { text: '1999!', keys: ['1999'] },
    ]);
    expect(sentences('One two. Three?\nFour\n\nfive six').map((s) => s.map((t) => t.text).join(' '))).toEqual(['One two.', 'Three?', 'Four', 'five six']);
  });
});

describe('timing without a model', () => {
  it('spreads words over the speech by their length, never into a pause', () => {
    const w = proportionalWords(tokenize('aaa bbb ccc ddd'), [{ start: 1, end: 3 }, { start: 5, end: 7 }]);
    expect(w.map((x) => x.start)).toEqual([1, 2, 5, 6]);
    for (const x of w) expect(x.end <= 3 || x.start >= 5).toBe(true);
  });

  it('fills untimed words between their timed neighbours', () => {
    const t = tokenize('a xyzzyq c');
    const w = fillGaps(t, [{ start: 1, end: 1.2 }, null, { start: 2, end: 2.3 }], { start: 0, end: 3 });
    expect(w[1]!.start).toBeGreaterThanOrEqual(1.2);
    expect(w[1]!.end).toBeLessThanOrEqual(2);
  });

  it('splits a text over regions by length, at sentence ends when close', () => {
    const s = sentences('One two three four. Five six seven eight nine ten.');
    // the first region is a little longer than its share: the cut still falls at the sentence end
    const parts = distributeText(s, [{ start: 0, end: 4.6 }, { start: 5, end: 10 }]);
    expect(parts.map((p) => p.map((t) => t.text).join(' '))).toEqual(['One two three four.', 'Five six seven eight nine ten.']);
  });
});

describe('pocketsphinx alignment', () => {
  const al = createPocketsphinxAligner();
  it.skipIf(!al.available())('times the given words from the voice, a word missing from the dictionary between its neighbours', async () => {
    const wav = librivoxWav('0880'); // "he was not an ill disposed young man", 2.99 s
    const [res, shifted] = await al.align(wav, [
      { start: 0, end: 2.99, tokens: tokenize('He was not an ill-disposed Zorbulax young man.') },
      { start: 1.3, end: 2.99, tokens: tokenize('disposed young man') },
    ]);
    expect(res!.words.map((w) => w.text)).toEqual(['He', 'was', 'not', 'an', 'ill-disposed', 'Zorbulax', 'young', 'man.']);
    expect(res!.aligned).toBe(7);
    const [he, , , , ill, oov, young, man] = res!.words;
    // the reading's first word starts about 0.2 s in, the last ends before the clip does
    expect(he!.start).toBeGreaterThan(0.1);
    expect(he!.start).toBeLessThan(0.4);
    expect(man!.end).toBeLessThanOrEqual(2.99);
    expect(oov!.start).toBeGreaterThanOrEqual(ill!.end);
    expect(oov!.end).toBeLessThanOrEqual(young!.start);
    // times are in the file's clock, whatever the window's start
    expect(shifted!.words[0]!.start).toBeGreaterThanOrEqual(1.3);
    expect(Math.abs(shifted!.words[2]!.start - man!.start)).toBeLessThan(0.1);
  });
});
