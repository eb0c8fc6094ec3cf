// Typical speaking rate per language in characters per second (spaces included), for the translation
// length budget. Measured rates of read speech; languages not listed use the default.
const CPS: Record<string, number> = {
  en: 14.5, es: 15.5, fr: 15, it: 15, pt: 15, de: 13.5, nl: 14, ca: 15, ro: 14.5, pl: 13.5, cs: 13.5, sv: 14, da: 14,
  no: 14, fi: 13, ru: 13.5, uk: 13.5, tr: 14, el: 14, hu: 13.5, id: 14.5, ms: 14.5, vi: 13, ar: 12.5, he: 12.5,
  hi: 13, ja: 8, zh: 5.5, ko: 7.5, th: 11,
};
export const DEFAULT_CPS = 14;

export function charsPerSecond(lang: string): number {
  return CPS[lang.toLowerCase().split(/[-_]/)[0]!] ?? DEFAULT_CPS;
}
