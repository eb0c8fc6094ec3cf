// The one formatter of the app: dates, times, numbers, minutes and money in the user's locale (the browser's
// language list), through Intl. Screens format through these and nothing else, so one page never shows two
// date formats.
type DateInput = Date | string | number;

/** The user's locale: the browser's preferred languages (Intl falls back to its default when none is usable). */
export function userLocales(): string[] {
  if (typeof navigator === 'undefined') return [];
  const list = navigator.languages?.length ? [...navigator.languages] : navigator.language ? [navigator.language] : [];
  return list.filter((l) => {
    try {
      return Intl.NumberFormat.supportedLocalesOf([l]).length > 0;
    } catch {
      return false;
    }
  });
}

const cache = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function numberFormat(opts: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `n${JSON.stringify(opts)}${userLocales().join(',')}`;
  let f = cache.get(key) as Intl.NumberFormat | undefined;
  if (!f) cache.set(key, (f = new Intl.NumberFormat(userLocales(), opts)));
  return f;
}
function dateFormat(opts: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `d${JSON.stringify(opts)}${userLocales().join(',')}`;
  let f = cache.get(key) as Intl.DateTimeFormat | undefined;
  if (!f) cache.set(key, (f = new Intl.DateTimeFormat(userLocales(), opts)));
  return f;
}
const toDate = (d: DateInput) => (d instanceof Date ? d : new Date(d));
const valid = (d: Date) => !Number.isNaN(d.getTime());

/** 1,234 (or 1.234 ...), at most `fraction` decimals. */
export function formatNumber(n: number, fraction = 0): string {
  return numberFormat({ maximumFractionDigits: fraction }).format(n);
}

/** "1 minute", "2,003 minutes", "0.5 minutes"; short: "2,003 min". Fractions show one decimal. */
export function formatMinutes(minutes: number, o: { short?: boolean } = {}): string {
  const rounded = Math.floor(Math.max(0, minutes) * 10) / 10;
  const text = formatNumber(rounded, 1);
  if (o.short) return `${text} min`;
  return `${text} ${rounded === 1 ? 'minute' : 'minutes'}`;
}

/** A calendar day: "27 Nov 2026", "Nov 27, 2026", "27.11.2026" ... as the locale writes it. */
export function formatDate(d: DateInput): string {
  const x = toDate(d);
  return valid(x) ? dateFormat({ year: 'numeric', month: 'short', day: 'numeric' }).format(x) : '';
}

/** A day and a time of day. */
export function formatDateTime(d: DateInput): string {
  const x = toDate(d);
  return valid(x) ? dateFormat({ year: 'numeric', month: 'short', day: 'numeric', hour: 'numeric', minute: '2-digit' }).format(x) : '';
}

/** An amount of money in a currency (ISO code, any case); whole amounts without decimals. */
export function formatMoney(amount: number, currency = 'usd'): string {
  try {
    return numberFormat({ style: 'currency', currency: currency.toUpperCase(), maximumFractionDigits: amount % 1 === 0 ? 0 : 2 }).format(amount);
  } catch {
    return `${formatNumber(amount, 2)} ${currency.toUpperCase()}`;
  }
}

const languageNames = new Map<string, Intl.DisplayNames | null>();
function displayNames(locales: string[]): Intl.DisplayNames | null {
  const key = locales.join(',');
  if (!languageNames.has(key)) {
    try {
      languageNames.set(key, new Intl.DisplayNames(locales, { type: 'language', fallback: 'none' }));
    } catch {
      languageNames.set(key, null);
    }
  }
  return languageNames.get(key) ?? null;
}

/**
 * A language's name in the user's locale ("Spanish", "Latin American Spanish"; "espagnol" for a French browser),
 * the same on every screen. `fallback` (the server's label) is used where Intl does not know the code.
 */
export function formatLanguage(code: string, fallback?: string): string {
  try {
    const name = displayNames(userLocales())?.of(code);
    if (name && name.toLowerCase() !== code.toLowerCase()) return name.charAt(0).toLocaleUpperCase() + name.slice(1);
  } catch {
    // An invalid code: the label below.
  }
  return fallback || code;
}

/** The language's own name for itself ("Español", "Deutsch"), for pickers where a speaker looks for it. */
export function nativeLanguageName(code: string): string | null {
  try {
    const name = displayNames([code])?.of(code);
    return name ? name.charAt(0).toLocaleUpperCase(code) + name.slice(1) : null;
  } catch {
    return null;
  }
}

/** A picker label: the name in the user's locale, and the language's own name after it when that differs. */
export function languagePickerLabel(code: string, fallback?: string): string {
  const name = formatLanguage(code, fallback);
  const own = nativeLanguageName(code);
  return own && own.toLocaleLowerCase() !== name.toLocaleLowerCase() ? `${name} (${own})` : name;
}

/** A Select group: the variants of one language under its name. */
export interface LanguageGroup<O> {
  title: string;
  options: O[];
}

/** 'es-419' -> 'es'. */
const baseOf = (value: string) => value.toLowerCase().split(/[-_]/)[0]!;

/**
 * The options of a language picker with regional variants under their language: a language that has variants
 * in the list becomes a group (titled with its name) holding its plain entry and its variants, in the list's
 * order, at the place of its first option; a language without variants stays a plain option.
 */
export function groupLanguageOptions<O extends { value: string }>(options: readonly O[]): Array<O | LanguageGroup<O>> {
  const count = new Map<string, number>();
  for (const o of options) count.set(baseOf(o.value), (count.get(baseOf(o.value)) ?? 0) + 1);
  const out: Array<O | LanguageGroup<O>> = [];
  const groups = new Map<string, LanguageGroup<O>>();
  for (const o of options) {
    const base = baseOf(o.value);
    if ((count.get(base) ?? 0) < 2) {
      out.push(o);
      continue;
    }
    let g = groups.get(base);
    if (!g) {
      g = { title: formatLanguage(base), options: [] };
      groups.set(base, g);
      out.push(g);
    }
    g.options.push(o);
  }
  return out;
}
