// The onboarding tour (spec sections 2 and 4): the 12 steps, where each is anchored, the two initial sets and
// the rules that decide who sees which step. Pure: tested in tests/web/onboarding.test.tsx.
import type { DeviceType } from '../../lib/device';

export const TOUR_STEP_IDS = [
  'advancedTools_v1',
  'audioTrackEditor_v1',
  'changeTextSection_v1',
  'clickToPlay_v1',
  'customizeVoiceClone_v1',
  'demoProjectWelcome_v1',
  'discoverTeamspace_v1',
  'downloadVideo_v1',
  'manageTeamspace_v1',
  'speakerVoicesButton_v1',
  'translateMyOwnVideoButton_v1',
  'videoPlayerTabs_v1',
] as const;
export type TourStepId = (typeof TOUR_STEP_IDS)[number];

/** Where a step points: a CSS selector, or an element of a role whose text is exactly `text`. */
export type Anchor = { selector: string } | { text: string; selector: string };

export interface TourStep {
  id: TourStepId;
  title: string;
  body: string;
  anchor: Anchor;
  /** Closing this step shows that one next (if it is still queued and its element is on the page). */
  chain?: TourStepId;
  /** Where the card sits beside its element. */
  placement: 'below' | 'right' | 'left' | 'above';
}

export const TOUR_STEPS: Record<TourStepId, TourStep> = {
  demoProjectWelcome_v1: {
    id: 'demoProjectWelcome_v1',
    title: 'Start with a demo',
    body: 'Open a ready demo project in your language and see what a dubbed video looks like. It costs no minutes.',
    anchor: { selector: '[data-tour="demo-view"]' },
    placement: 'below',
  },
  translateMyOwnVideoButton_v1: {
    id: 'translateMyOwnVideoButton_v1',
    title: 'Translate your own video',
    body: 'Upload a video or paste a YouTube, Google Drive or Vimeo link, pick the languages and we do the rest.',
    anchor: { selector: '.Polaris-Page-Header button, .Polaris-Page button', text: 'Translate video' },
    placement: 'below',
  },
  discoverTeamspace_v1: {
    id: 'discoverTeamspace_v1',
    title: 'Teamspaces are here',
    body: 'Your projects now live in Teamspaces. Switch between them here and share work with your team.',
    anchor: { selector: '.ds-space-switcher' },
    placement: 'right',
  },
  manageTeamspace_v1: {
    id: 'manageTeamspace_v1',
    title: 'Invite your team',
    body: 'Rename your Teamspace, pick its colour and invite teammates by e-mail in Settings & members.',
    anchor: { selector: '[data-item="settings_members"]' },
    placement: 'right',
  },
  customizeVoiceClone_v1: {
    id: 'customizeVoiceClone_v1',
    title: 'Clone a voice',
    body: 'Keep the original speaker’s voice in every language: create and tune voice clones in the Voice Clone Library.',
    anchor: { selector: '[data-item="voices"]' },
    placement: 'right',
  },
  clickToPlay_v1: {
    id: 'clickToPlay_v1',
    title: 'Watch it',
    body: 'Click the video to play it. Clicking a segment jumps to its moment.',
    anchor: { selector: '.ed-video' },
    chain: 'videoPlayerTabs_v1',
    placement: 'below',
  },
  videoPlayerTabs_v1: {
    id: 'videoPlayerTabs_v1',
    title: 'Original and translated',
    body: 'Switch between the original video and the dubbed one here.',
    anchor: { selector: '.ed-page [role="tablist"]' },
    chain: 'changeTextSection_v1',
    placement: 'below',
  },
  changeTextSection_v1: {
    id: 'changeTextSection_v1',
    title: 'Edit the script',
    body: 'Correct the transcript and the translation segment by segment; changes are saved as you go.',
    anchor: { selector: '.ed-list' },
    chain: 'speakerVoicesButton_v1',
    placement: 'left',
  },
  speakerVoicesButton_v1: {
    id: 'speakerVoicesButton_v1',
    title: 'Pick the voices',
    body: 'Rename speakers and choose the voice each one speaks with.',
    anchor: { selector: '.ed-side h2', text: 'Speakers and voices' },
    chain: 'audioTrackEditor_v1',
    placement: 'right',
  },
  audioTrackEditor_v1: {
    id: 'audioTrackEditor_v1',
    title: 'Fine-tune the timing',
    body: 'Drag a segment or its edges on the timeline to change when it starts and ends, against the waveform of the original and the dub.',
    anchor: { selector: '[data-tour="timeline"]' },
    chain: 'advancedTools_v1',
    placement: 'above',
  },
  advancedTools_v1: {
    id: 'advancedTools_v1',
    title: 'More tools',
    body: 'Subtitles, another language, downloads of the audio and SRT, and a way to tell us what went wrong.',
    anchor: { selector: 'button[aria-label="Downloads and more"]' },
    chain: 'downloadVideo_v1',
    placement: 'below',
  },
  downloadVideo_v1: {
    id: 'downloadVideo_v1',
    title: 'Generate and download',
    body: 'When you are happy, generate the dubbed video and download it as MP4.',
    anchor: { selector: '.ed-page button', text: 'Generate video' },
    placement: 'below',
  },
};

const EDITOR_SET: TourStepId[] = [
  'clickToPlay_v1',
  'videoPlayerTabs_v1',
  'changeTextSection_v1',
  'speakerVoicesButton_v1',
  'audioTrackEditor_v1',
  'advancedTools_v1',
  'downloadVideo_v1',
];
/** Users in the demo_project group without a subscription start with the demo. */
export const DEMO_SET: TourStepId[] = ['demoProjectWelcome_v1', 'translateMyOwnVideoButton_v1', 'discoverTeamspace_v1', 'manageTeamspace_v1', 'customizeVoiceClone_v1', ...EDITOR_SET];
export const DEFAULT_SET: TourStepId[] = ['translateMyOwnVideoButton_v1', 'discoverTeamspace_v1', 'manageTeamspace_v1', 'customizeVoiceClone_v1', ...EDITOR_SET];

/** Accounts created before this have no voice-clone step (it describes the library they already know). */
export const VOICE_CLONE_STEP_FROM = Date.parse('2024-07-01T00:00:00Z');
/** Accounts created before this get the Teamspace discovery step (Teamspaces arrived after they signed up). */
export const DISCOVER_TEAMSPACE_BEFORE = Date.parse('2025-04-15T00:00:00Z');

export const DEMO_GROUP = 'demo_project';

export interface TourUser {
  created_date: string;
  onboarding: string[];
  feature_groups: { name: string; option: { id: string } }[];
  subscription: unknown | null;
}

/** In the demo_project A/B group (any option but 'control'). */
export function inDemoGroup(user: Pick<TourUser, 'feature_groups'>): boolean {
  return user.feature_groups.some((g) => g.name === DEMO_GROUP && g.option.id !== 'control');
}

/** Tours run for trial-plan users (no subscription) or when forced, and never on mobile. */
export function tourActive(user: Pick<TourUser, 'subscription'>, o: { device: DeviceType; forced: boolean }): boolean {
  if (o.device === 'mobile') return false;
  return o.forced || user.subscription === null;
}

/** The queue a user starts with: their set, without completed steps and the steps their sign-up date rules out. */
export function initialQueue(user: TourUser, o: { device: DeviceType; forced: boolean }): TourStepId[] {
  if (!tourActive(user, o)) return [];
  const created = Date.parse(user.created_date);
  const base = user.subscription === null && inDemoGroup(user) ? DEMO_SET : DEFAULT_SET;
  const done = new Set(user.onboarding);
  return base.filter((id) => {
    if (done.has(id)) return false;
    if (id === 'customizeVoiceClone_v1' && created < VOICE_CLONE_STEP_FROM) return false;
    if (id === 'discoverTeamspace_v1' && !(created < DISCOVER_TEAMSPACE_BEFORE)) return false;
    return true;
  });
}

export interface TourState {
  queue: TourStepId[];
  current: TourStepId | null;
  done: TourStepId[];
}

/** The step to show: the chained one when it is on the page, else the first queued step whose element is. */
export function pickCurrent(s: Pick<TourState, 'queue'>, present: (id: TourStepId) => boolean, preferred: TourStepId | null = null): TourStepId | null {
  if (preferred && s.queue.includes(preferred) && present(preferred)) return preferred;
  return s.queue.find(present) ?? null;
}

/** Closing a step: out of the queue, into the done set (which is saved), and its chained step preferred next. */
export function closeStep(s: TourState, id: TourStepId): { state: TourState; next: TourStepId | null } {
  const done = s.done.includes(id) ? s.done : [...s.done, id];
  return { state: { queue: s.queue.filter((x) => x !== id), current: null, done }, next: TOUR_STEPS[id].chain ?? null };
}

/** The element a step points at, if it is on the page. */
export function findAnchor(step: TourStep, root: ParentNode = document): HTMLElement | null {
  const a = step.anchor;
  const all = Array.from(root.querySelectorAll<HTMLElement>(a.selector));
  const el = 'text' in a ? all.find((e) => e.textContent?.trim() === a.text) : all[0];
  return el ?? null;
}
