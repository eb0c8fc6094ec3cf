// The pure dictionary checks (server/domains/glossaries/check.ts): expected/found/missing terms of a segment,
// whole words only, case rules, "do not translate" terms, and pronunciations put in for the voice.
import { describe, expect, it } from 'vitest';
import { applyPronunciations, checkSegmentTerms, containsTerm, termsFor } from '../../../server/domains/glossaries/check';

const e = (source: string, target: string, o: { do_not_translate?: boolean; case_sensitive?: boolean; pronunciation?: string | null } = {}) => ({
  source, target, do_not_translate: false, case_sensitive: false, pronunciation: null, ...o,
});

describe('dictionary checks', () => {
  it('matches whole words only, across spacing, ignoring case unless the term is case-sensitive', () => {
    expect(containsTerm('Open the dashboard.', 'Dashboard')).toBe(true);
    expect(containsTerm('dashboards', 'dashboard')).toBe(false);
    expect(containsTerm('the  Acme\nCloud app', 'Acme Cloud')).toBe(true);
    expect(containsTerm('ios', 'iOS', true)).toBe(false);
    expect(containsTerm('niño pequeño', 'niño')).toBe(true);
    expect(containsTerm('señorita', 'señor')).toBe(false);
    expect(containsTerm('a (b) c', '(b)')).toBe(true);
  });

  it('keeps word boundaries around letters outside the BMP and accented capitals, and replaces every occurrence', () => {
    expect(containsTerm('𝒜cme', 'cme')).toBe(false); // a mathematical letter (two UTF-16 units) before the term
    expect(containsTerm('cme𝒜', 'cme')).toBe(false);
    expect(containsTerm('😀cme', 'cme')).toBe(true); // an emoji is not a letter
    expect(containsTerm('ÉCOLE', 'école')).toBe(true);
    expect(containsTerm('cartcart cart', 'cart')).toBe(true);
    expect(applyPronunciations('Acme, acme and Acmes', [e('Acme', 'Acme', { pronunciation: 'ak-mee' })])).toBe('ak-mee, ak-mee and Acmes');
  });

  it('checks a segment against a large dictionary without building an expression per term and segment', () => {
    const entries = Array.from({ length: 5000 }, (_, i) => e(`term${i}`, `término${i}`));
    const ok = Array.from({ length: 500 }, (_, i) => checkSegmentTerms(`We say term${i} here`, `Decimos término${i} aquí`, entries));
    expect(ok.every((c) => c.found.length === 1 && c.missing.length === 0)).toBe(true);
    expect(checkSegmentTerms('term1 and term2', 'término1', entries).missing).toEqual([{ source: 'term2', target: 'término2' }]);
  });

  it('lists the expected terms of a segment, found and missing in its translation', () => {
    const entries = [e('dashboard', 'tablero'), e('Acme', '', { do_not_translate: true }), e('cart', 'carrito'), e('iOS', 'iOS', { case_sensitive: true })];
    const c = checkSegmentTerms('Open the Acme dashboard on ios.', 'Abre el panel de Acme.', entries);
    expect(c.expected).toEqual([{ source: 'dashboard', target: 'tablero' }, { source: 'Acme', target: 'Acme' }]);
    expect(c.found).toEqual([{ source: 'Acme', target: 'Acme' }]);
    expect(c.missing).toEqual([{ source: 'dashboard', target: 'tablero' }]);
    expect(checkSegmentTerms('Nothing here', 'Nada', entries)).toEqual({ expected: [], found: [], missing: [] });
  });

  it('gives the MT engines {source, target} with "do not translate" terms mapped to themselves', () => {
    expect(termsFor([e('Acme', '', { do_not_translate: true }), e('cart', 'carrito'), e('  ', 'x')])).toEqual([
      { source: 'Acme', target: 'Acme' }, { source: 'cart', target: 'carrito' },
    ]);
    // Entries stored before the Dictionary had flags.
    expect(termsFor([{ source: 'cart', target: 'carrito' }])).toEqual([{ source: 'cart', target: 'carrito' }]);
  });

  it('tells the MT engines which terms are case sensitive', () => {
    expect(termsFor([e('Turkey', 'Turquía', { case_sensitive: true }), e('cart', 'carrito')])).toEqual([
      { source: 'Turkey', target: 'Turquía', caseSensitive: true },
      { source: 'cart', target: 'carrito' },
    ]);
  });

  it('puts pronunciations in place of the translated terms, longest first, whole words only', () => {
    const entries = [e('Acme', '', { do_not_translate: true, pronunciation: 'ak-mee' }), e('Acme Cloud', 'Acme Nube', { pronunciation: 'ak-mee NOO-beh' }), e('cart', 'carrito')];
    expect(applyPronunciations('Acme Nube y acme, no Acmes.', entries)).toBe('ak-mee NOO-beh y ak-mee, no Acmes.');
    expect(applyPronunciations('Sin términos.', entries)).toBe('Sin términos.');
  });
});
