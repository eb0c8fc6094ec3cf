// The tour engine on screen: one step at a time, beside the real element it explains. The queue comes from the
// user (src/features/onboarding/steps.ts); a step shows when its element is on the page; closing it moves it to
// the done set, which is saved to the user's onboarding field, and shows the chained step when there is one.
import { Button, InlineStack, Text } from '@shopify/polaris';
import { atom, useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { User } from '../../../contract/schemas/user';
import { updateCurrentUser } from '../../lib/api/use-current-user';
import { deviceTypeAtom } from '../../lib/state';
import { local, STORAGE_KEYS } from '../../lib/storage';
import { TOUR_STEPS, closeStep, findAnchor, initialQueue, pickCurrent, type TourStepId } from './steps';
import './onboarding.css';

/** The step on screen (null: none): other first-run prompts (surveys) wait while a step shows. */
export const tourStepAtom = atom<TourStepId | null>(null);

const CARD_W = 300;
/** Height assumed before the card has been measured. */
const CARD_H_GUESS = 180;
const GAP = 12;

type Placement = 'below' | 'right' | 'left' | 'above';
export interface CardPosition {
  top: number;
  left: number;
  /** Where the card ended up (a side without room flips to the other). */
  placement: Placement;
  /** The arrow's offset along the card's edge that faces the element (px from the card's left or top). */
  arrow: number;
}

/**
 * Where the card goes beside an element, inside the window: the preferred side, or the opposite one when the
 * card does not fit there; the arrow points at the element's middle.
 */
export function placeCard(rect: { top: number; left: number; right: number; bottom: number; width: number; height: number }, preferred: Placement, card: { w: number; h: number }, vw: number, vh: number): CardPosition {
  const clamp = (x: number, lo: number, hi: number) => Math.max(lo, Math.min(x, Math.max(lo, hi)));
  let placement = preferred;
  if (placement === 'above' && rect.top - card.h - GAP < 8) placement = 'below';
  else if (placement === 'below' && rect.bottom + card.h + GAP > vh - 8 && rect.top - card.h - GAP >= 8) placement = 'above';
  else if (placement === 'right' && rect.right + card.w + GAP > vw - 8) placement = rect.left - card.w - GAP >= 8 ? 'left' : 'below';
  else if (placement === 'left' && rect.left - card.w - GAP < 8) placement = rect.right + card.w + GAP <= vw - 8 ? 'right' : 'below';
  if (placement === 'above' || placement === 'below') {
    const left = clamp(rect.left + rect.width / 2 - card.w / 2, 8, vw - card.w - 8);
    const top = placement === 'below' ? clamp(rect.bottom + GAP, 8, vh - card.h - 8) : clamp(rect.top - GAP - card.h, 8, vh - card.h - 8);
    return { top, left, placement, arrow: clamp(rect.left + rect.width / 2 - left, 16, card.w - 16) };
  }
  const top = clamp(rect.top + rect.height / 2 - card.h / 2, 8, vh - card.h - 8);
  const left = placement === 'right' ? rect.right + GAP : rect.left - GAP - card.w;
  return { top, left: clamp(left, 8, vw - card.w - 8), placement, arrow: clamp(rect.top + rect.height / 2 - top, 16, card.h - 16) };
}

/** Brings an element into the window when it is (mostly) outside it. */
function bringIntoView(el: Element) {
  const r = el.getBoundingClientRect();
  const vh = window.innerHeight;
  const visible = Math.min(r.bottom, vh) - Math.max(r.top, 0);
  if (visible < Math.min(r.height, vh) * 0.6) el.scrollIntoView({ block: r.height > vh * 0.6 ? 'start' : 'center', inline: 'nearest' });
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
  const [pos, setPos] = useState<CardPosition | null>(null);
  const card = useRef<HTMLElement | null>(null);
  const scrolledFor = useRef<TourStepId | null>(null);

  useEffect(() => setState({ queue: start, current: null, done: [] }), [start]);

  // Which step shows: re-decided whenever the page changes (route, lazy content) or the queue does.
  const evaluate = useCallback(() => {
    const current = pickCurrent(state, (id) => findAnchor(TOUR_STEPS[id]) !== null, preferred);
    setState((s) => (s.current === current ? s : { ...s, current }));
    if (current) {
      const el = findAnchor(TOUR_STEPS[current]);
      if (el) {
        // A new step first brings its element into view (once: the user may scroll away afterwards).
        if (scrolledFor.current !== current) {
          scrolledFor.current = current;
          bringIntoView(el);
        }
        const size = { w: CARD_W, h: card.current?.offsetHeight || CARD_H_GUESS };
        const next = placeCard(el.getBoundingClientRect(), TOUR_STEPS[current].placement, size, window.innerWidth, window.innerHeight);
        // Whole pixels: sub-pixel jitter must not re-render the card.
        next.top = Math.round(next.top);
        next.left = Math.round(next.left);
        next.arrow = Math.round(next.arrow);
        setPos((p) => (p && p.top === next.top && p.left === next.left && p.placement === next.placement && p.arrow === next.arrow ? p : next));
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
  // Placed with a transform, not top/left: the card follows its element as lazy content moves it, and a moved
  // transform is not a layout shift (CLS) for the page.
  const total = state.queue.length + state.done.length;
  const index = state.done.length + 1;
  return (
    <aside ref={card} className="ds-tour" role="complementary" aria-label={step.title} data-tour-step={step.id} data-placement={pos.placement} style={{ top: 0, left: 0, transform: `translate(${pos.left}px, ${pos.top}px)`, width: CARD_W }}>
      <span
        className="ds-tour__arrow"
        aria-hidden="true"
        style={pos.placement === 'above' || pos.placement === 'below' ? { left: pos.arrow - 8 } : { top: pos.arrow - 8 }}
      />
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
