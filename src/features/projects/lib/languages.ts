// Language choices of the pickers: the settings' lists, sorted by numeric id, with flags, named by the one formatter
// (src/lib/format.ts: the name in the user's locale, then the language's own name).
import type { Language } from '../../../../contract/schemas/settings';
import { languagePickerLabel } from '../../../lib/format';

/** Flag emoji of an ISO 3166-1 alpha-2 country code ('' when the code is not two letters). */
export function flagOf(countryCode: string | null | undefined): string {
  const cc = (countryCode ?? '').trim().toUpperCase();
  if (!/^[A-Z]{2}$/.test(cc)) return '';
  return String.fromCodePoint(...[...cc].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65));
}

let flagSupport: boolean | null = null;
/**
 * Whether this browser draws flag emoji in colour (a system without an emoji font draws boxes, and then
 * the names are shown without flags). Unknown (no canvas) counts as supported.
 */
export function supportsFlagEmoji(): boolean {
  if (flagSupport !== null) return flagSupport;
  try {
    const canvas = typeof document !== 'undefined' ? document.createElement('canvas') : null;
    const ctx = canvas?.getContext?.('2d', { willReadFrequently: true }) as CanvasRenderingContext2D | null | undefined;
    if (!canvas || !ctx || typeof ctx.getImageData !== 'function') return (flagSupport = true);
    canvas.width = canvas.height = 20;
    ctx.textBaseline = 'top';
    ctx.font = '16px sans-serif';
    ctx.fillText(flagOf('US'), 0, 0);
    const d = ctx.getImageData(0, 0, 20, 20).data;
    let coloured = false;
    for (let i = 0; i < d.length && !coloured; i += 4) {
      const [r, g, b, a] = [d[i], d[i + 1], d[i + 2], d[i + 3]];
      if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured = true;
    }
    return (flagSupport = coloured);
  } catch {
    return (flagSupport = true);
  }
}

export interface LanguageOption {
  value: string;
  label: string;
  /** The note of a regional variant the translation engine has one vocabulary for (the voice follows the region). */
  note?: string;
}

/**
 * Options for a Select: sorted by numeric id; free languages left out of the translation list unless
 * the free_languages feature is on (spec section 5).
 */
export function languageOptions(
  list: readonly Language[],
  o: { translation?: boolean; freeLanguages?: boolean; flags?: boolean } = {},
): LanguageOption[] {
  const flags = o.flags ?? supportsFlagEmoji();
  return [...list]
    .filter((l) => !(o.translation && l.is_free && !o.freeLanguages))
    .sort((a, b) => a.id - b.id)
    .map((l) => {
      const flag = flags ? flagOf(l.country_code) : '';
      const name = languagePickerLabel(l.value, l.label);
      return { value: l.value, label: flag ? `${flag} ${name}` : name, ...(l.variant_note ? { note: l.variant_note } : {}) };
    });
}
