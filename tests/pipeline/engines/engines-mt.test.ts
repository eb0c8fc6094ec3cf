// Apertium MT: installed pairs, real translation, glossary enforcement, batching.
import { describe, expect, it } from 'vitest';
import {
  cleanApertiumOutput,
  createApertiumMt,
  parseApertiumMode,
  protectTerms,
  restoreSentenceShape,
  restoreTerms,
} from '../../../server/engines/builtin/apertium';
import { mapLimit } from '../../../server/engines/builtin/util';
import { EngineError } from '../../../server/engines/types';
import { MT_LINES, lineDrift } from '../../fixtures/mt-lines';

const mt = createApertiumMt();

describe('apertium', () => {
  it('discovers the installed pairs as ISO 639-1 codes', async () => {
    await mt.init!();
    const pairs = mt.pairs().map(([a, b]) => `${a}-${b}`);
    expect(pairs).toContain('en-es');
    expect(pairs).toContain('es-en');
    expect(pairs.every((p) => /^[a-z]{2,3}-[a-z]{2,3}$/.test(p))).toBe(true);
  });

  it('translates English to Spanish', async () => {
    const [out] = await mt.translate(['The house is big and the dog is black.'], 'en', 'es');
    expect(out).toMatch(/casa/i);
    expect(out).toMatch(/perro/i);
    expect(out).toMatch(/grande/i);
    expect(out).toMatch(/negro/i);
    expect(out!.endsWith('.')).toBe(true);
    expect(out![0]).toBe(out![0]!.toUpperCase());
  });

  it('keeps order and count across a batch, with empty and multi-line texts', async () => {
    const texts = ['Hello.', '', 'Good morning, my friend!', '   ', 'First line\nsecond line', 'Where is the house?'];
    const out = await mt.translate(texts, 'en', 'es');
    expect(out).toHaveLength(texts.length);
    expect(out[1]).toBe('');
    expect(out[3]).toBe('');
    expect(out[0]).toMatch(/^Hola/);
    expect(out[2]).toMatch(/amigo/i);
    expect(out[4]).not.toContain('\n');
    expect(out[5]).toMatch(/casa/i);
  });

  it('removes unknown-word marks', async () => {
    const [out] = await mt.translate(['The glorbix is red.'], 'en', 'es');
    expect(out).toContain('glorbix');
    expect(out).not.toMatch(/[*#@]/);
  });

  it('forces glossary terms (case-insensitive, whole words, longest first)', async () => {
    const glossary = [
      { source: 'dubbing studio', target: 'Estudio de Doblaje' },
      { source: 'studio', target: 'taller' },
      { source: 'car', target: 'bólido' },
    ];
    const out = await mt.translate(
      ['Our Dubbing Studio is open.', 'I like the red car.', 'The carpet is in the studio.', 'Car races are fun.'],
      'en',
      'es',
      { glossary },
    );
    expect(out[0]).toContain('Estudio de Doblaje');
    expect(out[0]).not.toContain('taller');
    expect(out[1]).toContain('bólido');
    expect(out[1]).not.toMatch(/coche/);
    expect(out[2]).toContain('taller');
    expect(out[2]).not.toContain('bólido'); // "carpet" is not "car"
    expect(out[3]).toMatch(/^Bólido/); // sentence-initial capital kept
    for (const o of out) expect(o).not.toMatch(/ZQX/i);
  });

  it('keeps each line its own: 200 unpunctuated lines in one call match one-at-a-time, no word moves to a neighbour', async () => {
    const lines = [...MT_LINES];
    expect(lines).toHaveLength(200);
    const batched = await mt.translate(lines, 'en', 'es');
    expect(batched).toHaveLength(200);
    // One at a time: the first 60 lines (each its own apertium call), compared with the batched ones.
    const n = 60;
    const single = await mapLimit(lines.slice(0, n), 3, async (l) => (await mt.translate([l], 'en', 'es'))[0]!);
    const drift = lineDrift(batched.slice(0, n), single);
    expect(drift.neighbourWord).toEqual([]);
    // Apertium's HMM tagger keeps some state from one text to the next, which can change how an ambiguous
    // word is read (never which line a word lands on): at most one line in 60 may differ that way.
    expect(drift.differing.length).toBeLessThanOrEqual(1);
    for (const b of batched) expect(b).not.toMatch(/\s\.$/); // the added boundary mark is stripped
  }, 240_000);

  it('keeps a line apart even when it ends a sentence or holds a comma at its end', async () => {
    const out = await mt.translate(['the white', 'house is big.', 'he said,', 'the red car'], 'en', 'es');
    expect(out[0]).not.toMatch(/casa/i);
    expect(out[1]).toMatch(/casa/i);
    expect(out[1]!.endsWith('.')).toBe(true);
    expect(out[2]!.endsWith(',')).toBe(true);
    expect(out[3]).toMatch(/coche/i);
    expect(out[3]!.endsWith('.')).toBe(false);
  });

  it('honours case-sensitive terms: "Turkey" the country does not fire on "roast turkey"', async () => {
    const glossary = [{ source: 'Turkey', target: 'Turquía', caseSensitive: true }];
    const out = await mt.translate(['We ate roast turkey in Turkey.', 'the turkey was big', 'Turkey sent a plane'], 'en', 'es', { glossary });
    expect(out[0]).toMatch(/pavo/);
    expect(out[0]).toMatch(/en Turquía\.$/);
    expect(out[0]!.match(/Turquía/g)).toHaveLength(1);
    expect(out[1]).not.toMatch(/Turquía/);
    expect(out[2]).toMatch(/^Turquía envió/);
    // without the flag the term is matched in any case, as before
    const [loose] = await mt.translate(['the turkey was big'], 'en', 'es', { glossary: [{ source: 'Turkey', target: 'Turquía' }] });
    expect(loose).toMatch(/Turquía/);
  });

  it('keeps the words around a forced term grammatical: no capital after it, articles agree with its gender', async () => {
    const glossary = [
      { source: 'NASA', target: 'NASA' },
      { source: 'Acme', target: 'Acme' },
      { source: 'engine room', target: 'sala de máquinas' },
      { source: 'engine rooms', target: 'salas de máquinas' },
      { source: 'problem', target: 'lío' },
    ];
    const out = await mt.translate(
      ['NASA sent a robot', 'Acme sent a robot', 'The engine room was flooded.', 'they went to the engine room', 'I saw the engine rooms.', 'The big engine room and the problem'],
      'en',
      'es',
      { glossary },
    );
    expect(out[0]).toMatch(/NASA envió/);
    expect(out[1]).toMatch(/^Acme envió/); // an unknown word to apertium: no capital after it either
    expect(out[2]).toMatch(/^La sala de máquinas/);
    expect(out[3]).toMatch(/a la sala de máquinas/);
    expect(out[4]).toMatch(/las salas de máquinas/);
    expect(out[5]).toMatch(/^La sala de máquinas grande y el lío/);
    for (const o of out) expect(o).not.toMatch(/ZQX|cebra|martillo/i);
  });

  it('a stand-in already in the text falls back to a placeholder', async () => {
    const [out] = await mt.translate(['the zebra saw the engine room'], 'en', 'es', { glossary: [{ source: 'engine room', target: 'sala de máquinas' }] });
    expect(out).toMatch(/cebra/);
    expect(out).toMatch(/sala de máquinas/);
  });

  it('refuses a pair that is not installed', async () => {
    await expect(mt.translate(['hola'], 'es', 'ja')).rejects.toBeInstanceOf(EngineError);
  });
});

describe('apertium helpers', () => {
  it('parses mode names', () => {
    expect(parseApertiumMode('eng-spa')).toEqual(['en', 'es']);
    expect(parseApertiumMode('en-es')).toEqual(['en', 'es']);
    expect(parseApertiumMode('spa-eng_US')).toBeNull();
    expect(parseApertiumMode('xxx-spa')).toBeNull();
  });
  it('protects and restores terms', () => {
    const p = protectTerms('Dubbing studio rocks; the studio too.', [{ source: 'studio', target: 'taller' }, { source: 'dubbing studio', target: 'Doblaje' }]);
    expect(p.text).toBe('ZQXA rocks; the ZQXB too.');
    expect(p.targets).toEqual(['Doblaje', 'taller']);
    expect(restoreTerms('zqxa mola; el ZQXB también.', p.targets, p.capitalised)).toBe('Doblaje mola; el taller también.');
    const q = protectTerms('NASA sent it', [{ source: 'NASA', target: 'NASA' }]);
    expect(restoreTerms('ZQXA Envió él', q.targets, q.capitalised, q.lowerNext)).toBe('NASA envió él');
  });
  it('cleans marks but keeps the source’s own', () => {
    expect(cleanApertiumOutput('Hola *mundo #ser @casa', 'x')).toBe('Hola mundo ser casa');
    expect(cleanApertiumOutput('Sigue #dubbing', 'Follow #dubbing')).toBe('Sigue #dubbing');
    expect(cleanApertiumOutput(' Quiero  esto , ya', 'x')).toBe('Quiero esto, ya');
  });
  it('restores final punctuation and the initial capital', () => {
    expect(restoreSentenceShape('no fue un hombre', 'He was not a man.')).toBe('No fue un hombre.');
    expect(restoreSentenceShape('Qué?', 'What?')).toBe('Qué?');
    expect(restoreSentenceShape('hola', 'hello')).toBe('hola');
  });
});
