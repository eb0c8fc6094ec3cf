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
