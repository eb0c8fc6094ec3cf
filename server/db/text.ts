// Text stored in the database: PostgreSQL refuses NUL characters in text, and error texts may quote what a file
// or a tool wrote (binary bytes read as text). Every stored error text goes through storableText.

/** `s` without NUL and other control characters (tab and line breaks kept), at most `max` characters. */
export function storableText(s: string, max = 2000): string {
  // eslint-disable-next-line no-control-regex
  const clean = s.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '').replace(/\uFFFD+/g, '\uFFFD');
  return clean.length > max ? `${clean.slice(0, max - 1)}…` : clean;
}

/** storableText of an optional text. */
export function storableError(s: string | null | undefined, max?: number): string | null {
  return s === null || s === undefined ? null : storableText(s, max);
}
