// Plans and checkout frames.
export { planCards, priceIdOf, parsePriceId, PLAN_LABELS, SHOWN_PLANS, type PlanCard, type Interval, type ShownPlan } from './plans';
