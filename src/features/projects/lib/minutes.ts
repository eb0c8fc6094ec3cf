// The minutes check before starting a dub (spec section 5 'Enough minutes').
import { hasEnoughMinutes, minutesNeeded } from '../../../../contract/constants';
import type { Credits } from '../../../../contract/schemas/space';

export function availableMinutes(credits: Credits | null | undefined): number {
  if (!credits) return 0;
  return Math.max(0, credits.minutes.total - credits.minutes.used);
}

export interface MinutesCheck {
  ok: boolean;
  needed: number;
  available: number;
  message: string | null;
}

export function checkMinutes(credits: Credits | null | undefined, durationSec: number | null): MinutesCheck {
  const available = availableMinutes(credits);
  if (durationSec == null) return { ok: true, needed: 0, available, message: null };
  const needed = minutesNeeded(durationSec);
  const ok = hasEnoughMinutes(available, durationSec);
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  return {
    ok,
    needed,
    available,
    message: ok
      ? null
      : `This video needs ${needed} ${needed === 1 ? 'minute' : 'minutes'}, you have ${fmt(available)} available.`,
  };
}
