// The customer's words (issue 33): espeak-ng's phonemes mapped to the CMU phone set of pocketsphinx, measured
// against cmudict on words it has (a fixed sample: every 449th entry, 262 words), and the term dictionary the decoder
// is given.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildTermDict, CARRIERS, CMU_PHONES, ESPEAK_TO_CMU, espeakPronunciations, espeakToCmu, normalizeTermWord, termWords,
} from '../../../server/engines/builtin/asr-terms';
import { DEFAULT_POCKETSPHINX_MODEL, lmVocab, parseHypsegLine } from '../../../server/engines/builtin/pocketsphinx';

const DICT = join(DEFAULT_POCKETSPHINX_MODEL, 'cmudict-en-us.dict');
const dir = mkdtempSync(join(tmpdir(), 'asr-terms-test-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function phoneErrors(a: readonly string[], b: readonly string[]): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

describe('espeak-ng phonemes to CMU phones', () => {
  it('maps only to CMU phones', () => {
    for (const phones of Object.values(ESPEAK_TO_CMU)) for (const p of phones) expect(CMU_PHONES.has(p), p).toBe(true);
  });

  it('maps known espeak strings', () => {
    expect(espeakToCmu("k_@_m_p_j_'u:_t#_3")).toEqual(['K', 'AH', 'M', 'P', 'Y', 'UW', 'T', 'ER']);
    expect(espeakToCmu("T_'O:_t")).toEqual(['TH', 'AO', 'T']);
    expect(espeakToCmu("v_aa_n_t_'o@_r_I2_;_,oU")).toEqual(['V', 'AE', 'N', 'T', 'AO', 'R', 'IH', 'OW']);
    expect(espeakToCmu("dZ_'V_dZ")).toEqual(['JH', 'AH', 'JH']);
    expect(espeakToCmu('?')).toBeNull();
  });

  it('agrees with cmudict on words it has (phone accuracy >= 85%, exact words >= 50%)', async () => {
    const lines = readFileSync(DICT, 'utf8').split('\n').filter((l) => l && !/^\S+\(\d+\)/.test(l) && /^[a-z]+ /.test(l));
    const sample = lines.filter((_, i) => i % 449 === 0).slice(0, 300);
    const ref = new Map(sample.map((l) => [l.split(' ')[0]!, l.split(' ').slice(1)]));
    const got = await espeakPronunciations([...ref.keys()]);
    expect(got.size).toBe(ref.size);
    let errors = 0;
    let phones = 0;
    let exact = 0;
    for (const [w, r] of ref) {
      const e = phoneErrors(r, got.get(w)!);
      errors += e;
      phones += r.length;
      if (e === 0) exact++;
    }
    const accuracy = 1 - errors / phones;
    console.log(`espeak->CMU on ${ref.size} cmudict words: phone accuracy ${(100 * accuracy).toFixed(1)}%, exact ${((100 * exact) / ref.size).toFixed(1)}%`);
    expect(accuracy).toBeGreaterThanOrEqual(0.85);
    expect(exact / ref.size).toBeGreaterThanOrEqual(0.5);
  }, 120_000);
});

describe('term words and the term dictionary', () => {
  it('splits terms into distinct words', () => {
    expect(termWords(['Vantorio blender', 'Skellefteå', 'vantorio', 'R2-D2', 'a', "O'Neill's"])).toEqual(['vantorio', 'blender', 'skelleftea', 'r2', 'd2', "o'neill's"]);
    expect(normalizeTermWord('Tromsø')).toBe('tromso');
    expect(normalizeTermWord('Ærøskøbing')).toBe('aeroskobing');
  });

  it('gives the decoder carrier pronunciations of the words its model lacks, and maps them back', async () => {
    const td = await buildTermDict({ dictPath: DICT, lmVocabPath: await lmVocab(join(DEFAULT_POCKETSPHINX_MODEL, 'en-us.lm.bin')), words: ['zephyrix', 'tromso', 'blender'], dir });
    expect(td).not.toBeNull();
    // "blender" is known to dictionary and model: nothing to add
    expect(td!.added.map((a) => a.word)).toEqual(['zephyrix', 'tromso']);
    expect(td!.added[0]).toMatchObject({ source: 'espeak', phones: ['Z', 'EH', 'F', 'IH', 'R', 'IH', 'K', 'S'] });
    const text = readFileSync(td!.dictPath, 'utf8');
    expect(text.startsWith(readFileSync(DICT, 'utf8'))).toBe(true);
    const added = text.slice(readFileSync(DICT, 'utf8').length).trim().split('\n');
    expect(added).toHaveLength(2 * CARRIERS.length);
    expect(added[0]).toMatch(/^london\(\d+\) Z EH F IH R IH K S$/);
    const alias = added[0]!.split(' ')[0]!;
    expect(td!.aliases.get(alias)).toBe('zephyrix');
    const u = parseHypsegLine(`r0 S 0 T -1 A -1 L -1 0 -1 0 <s> 10 -1 -1 our 30 -1 -1 ${alias} 90 -1 -1 london 120`, td!.aliases);
    expect(u!.words.map((w) => w.text)).toEqual(['our', 'zephyrix', 'london']);
  }, 60_000);
});
