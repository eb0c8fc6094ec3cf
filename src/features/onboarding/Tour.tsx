// The tour engine on screen: one step at a time, beside the real element it explains. The queue comes from the
// user (src/features/onboarding/steps.ts); a step shows when its element is on the page; closing it moves it to
// the done set, which is saved to the user's onboarding field, and shows the chained step when there is one.
import { Button, InlineStack, Text } from '@shopify/polaris';
import { atom, useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useEffect, useMemo, useState } from 'react';
import type { User } from '../../../contract/schemas/user';
import { updateCurrentUser } from '../../lib/api/use-current-user';
import { deviceTypeAtom } from '../../lib/state';
import { local, STORAGE_KEYS } from '../../lib/storage';
import { TOUR_STEPS, closeStep, findAnchor, initialQueue, pickCurrent, type TourStepId } from './steps';
import './onboarding.css';

/** The step on screen (null: none): other first-run prompts (surveys) wait while a step shows. */
export const tourStepAtom = atom<TourStepId | null>(null);

const CARD_W = 300;

function placeCard(rect: DOMRect, placement: 'below' | 'right' | 'left' | 'above'): { top: number; left: number } {
  const vw = window.innerWidth;
  const clampX = (x: number) => Math.max(8, Math.min(x, vw - CARD_W - 8));
  if (placement === 'right') return { top: Math.max(8, rect.top), left: clampX(rect.right + 12) };
  if (placement === 'left') return { top: Math.max(8, rect.top), left: clampX(rect.left - CARD_W - 12) };
  // Above: `top` is where the card's bottom goes (the card is moved up by its own height).
  if (placement === 'above') return { top: Math.max(8, rect.top - 10), left: clampX(rect.left) };
  return { top: rect.bottom + 10, left: clampX(rect.left) };
}

export function Tour({ user }: { user: User }) {
  const device = useAtomValue(deviceTypeAtom);
  const forced = local.has(STORAGE_KEYS.onboardingForce);
  const setShown = useSetAtom(tourStepAtom);
  // The queue is decided once per account; later closes only remove from it.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const start = useMemo(() => initialQueue(user, { device, forced }), [user.id, device, forced]);
  const [state, setState] = useState({ queue: start, current: null as TourStepId | null, done: [] as TourStepId[] });
  const [preferred, setPreferred] = useState<TourStepId | null>(null);
  const [pos, setPos] = useState<{ top: number; left: number } | null>(null);

  useEffect(() => setState({ queue: start, current: null, done: [] }), [start]);

  // Which step shows: re-decided whenever the page changes (route, lazy content) or the queue does.
  const evaluate = useCallback(() => {
    const current = pickCurrent(state, (id) => findAnchor(TOUR_STEPS[id]) !== null, preferred);
    setState((s) => (s.current === current ? s : { ...s, current }));
    if (current) {
      const el = findAnchor(TOUR_STEPS[current]);
      if (el) {
        const next = placeCard(el.getBoundingClientRect(), TOUR_STEPS[current].placement);
        // Whole pixels: sub-pixel jitter must not re-render the card.
        next.top = Math.round(next.top);
        next.left = Math.round(next.left);
        setPos((p) => (p && p.top === next.top && p.left === next.left ? p : next));
      }
    }
  }, [state, preferred]);

  // Re-evaluated at most once a frame (route changes, lazy content, scrolling): never a synchronous update chain.
  useEffect(() => {
    if (state.queue.length === 0) return;
    let frame = 0;
    const schedule = () => {
      if (!frame) frame = requestAnimationFrame(() => {
        frame = 0;
        evaluate();
      });
    };
    schedule();
    const obs = new MutationObserver(schedule);
    obs.observe(document.body, { childList: true, subtree: true });
    window.addEventListener('resize', schedule);
    window.addEventListener('scroll', schedule, true);
    return () => {
      if (frame) cancelAnimationFrame(frame);
      obs.disconnect();
      window.removeEventListener('resize', schedule);
      window.removeEventListener('scroll', schedule, true);
    };
  }, [evaluate, state.queue.length]);

  const shown = state.current;
  useEffect(() => {
    setShown(shown);
    return () => setShown(null);
  }, [shown, setShown]);

  function save(done: TourStepId[]) {
    // The seen set goes to the account (update user); a failed save only means the step may show again.
    void updateCurrentUser({ onboarding: [...new Set([...user.onboarding, ...done])] }).catch(() => {});
  }

  function close(id: TourStepId) {
    const r = closeStep(state, id);
    setState(r.state);
    setPreferred(r.next);
    save(r.state.done);
  }

  function skipAll() {
    const done = [...new Set([...state.done, ...state.queue])];
    setState({ queue: [], current: null, done });
    save(done);
  }

  const step = state.current ? TOUR_STEPS[state.current] : null;
  if (!step || !pos) return null;
  const total = state.queue.length + state.done.length;
  const index = state.done.length + 1;
  return (
    <aside className="ds-tour" role="complementary" aria-label={step.title} data-tour-step={step.id} style={{ top: pos.top, left: pos.left, width: CARD_W, ...(step.placement === 'above' ? { transform: 'translateY(-100%)' } : {}) }}>
      <Text as="h2" variant="headingSm">
        {step.title}
      </Text>
      <Text as="p" variant="bodyMd">
        {step.body}
      </Text>
      <InlineStack align="space-between" blockAlign="center">
        <Text as="span" variant="bodySm" tone="subdued">
          {`${index} of ${total}`}
        </Text>
        <InlineStack gap="200">
          <Button variant="plain" onClick={skipAll}>
            Skip tour
          </Button>
          <Button variant="primary" onClick={() => close(step.id)}>
            {step.chain ? 'Next' : 'Got it'}
          </Button>
        </InlineStack>
      </InlineStack>
    </aside>
  );
}
