// Created-date label (spec section 3): Today, Yesterday or Tomorrow, otherwise day.month.year.

function dayNumber(d: Date): number {
  // Local calendar day, independent of the time of day and of DST shifts.
  return Math.round(Date.UTC(d.getFullYear(), d.getMonth(), d.getDate()) / 86_400_000);
}

export function createdDateLabel(created: string | Date, now: Date = new Date()): string {
  const d = created instanceof Date ? created : new Date(created);
  if (Number.isNaN(d.getTime())) return '';
  const diff = dayNumber(d) - dayNumber(now);
  if (diff === 0) return 'Today';
  if (diff === -1) return 'Yesterday';
  if (diff === 1) return 'Tomorrow';
  return `${String(d.getDate()).padStart(2, '0')}.${String(d.getMonth() + 1).padStart(2, '0')}.${d.getFullYear()}`;
}
