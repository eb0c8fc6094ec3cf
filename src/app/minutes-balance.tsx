// The minutes left in the current space, always in view (sidebar under the switcher, the top bar on narrow
// windows, the embedded bar): a click opens the way to more minutes in place (buy minutes for a subscriber who
// can, the plans otherwise).
import { useAtomValue, useSetAtom } from 'jotai';
import { useCredits } from '../lib/api/use-credits';
import { formatMinutes } from '../lib/format';
import { getMoreMinutesAtom } from '../lib/state';

export function MinutesBalance({ spaceId, compact = false }: { spaceId: string | null; compact?: boolean }) {
  const { data: credits } = useCredits(spaceId);
  const openMore = useSetAtom(getMoreMinutesAtom);
  const open = useAtomValue(getMoreMinutesAtom);
  if (!credits) return null;
  const left = Math.max(0, credits.minutes.total - credits.minutes.used);
  const low = left < 1;
  return (
    <button
      type="button"
      className={`ds-balance${low ? ' is-empty' : ''}${compact ? ' is-compact' : ''}`}
      data-testid="minutes-balance"
      aria-expanded={open}
      aria-label={`${formatMinutes(left)} left. Get more minutes`}
      onClick={() => openMore(true)}
    >
      <span className="ds-balance__value">{compact ? formatMinutes(left, { short: true }) : `${formatMinutes(left)} left`}</span>
    </button>
  );
}
