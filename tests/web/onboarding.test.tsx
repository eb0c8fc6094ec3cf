// The onboarding tour: who gets which steps (trial only or forced, never on mobile, the two sets, completed
// steps, the sign-up date rules), one step at a time beside its real element, closing saves the seen set and
// chains to the next step; and the survey prompt (shown while no step shows; answer or dismiss once).
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { AppProvider } from '@shopify/polaris';
import en from '@shopify/polaris/locales/en.json';
import { Provider as JotaiProvider, createStore } from 'jotai';
import { http, HttpResponse } from 'msw';
import { SWRConfig } from 'swr';
import { describe, expect, it } from 'vitest';
import { Tour } from '../../src/features/onboarding/Tour';
import { SurveyPrompt } from '../../src/features/onboarding/SurveyPrompt';
import {
  DEFAULT_SET, DEMO_SET, TOUR_STEPS, TOUR_STEP_IDS, closeStep, initialQueue, pickCurrent, tourActive, type TourStepId,
} from '../../src/features/onboarding/steps';
import { deviceTypeAtom } from '../../src/lib/state';
import { STORAGE_KEYS } from '../../src/lib/storage';
import { userFixture } from './app-harness';
import { server } from './msw';

const NEW = '2025-06-01T00:00:00Z';
const desktop = { device: 'desktop' as const, forced: false };

describe('tour rules', () => {
  it('has the 12 steps of the spec, each anchored to an element', () => {
    expect([...TOUR_STEP_IDS].sort()).toEqual([
      'advancedTools_v1', 'audioTrackEditor_v1', 'changeTextSection_v1', 'clickToPlay_v1', 'customizeVoiceClone_v1', 'demoProjectWelcome_v1',
      'discoverTeamspace_v1', 'downloadVideo_v1', 'manageTeamspace_v1', 'speakerVoicesButton_v1', 'translateMyOwnVideoButton_v1', 'videoPlayerTabs_v1',
    ]);
    for (const id of TOUR_STEP_IDS) expect(TOUR_STEPS[id].anchor.selector.length).toBeGreaterThan(0);
    expect(new Set([...DEMO_SET, ...DEFAULT_SET]).size).toBe(12);
  });

  it('only trial users (or forced), never on mobile', () => {
    const trial = userFixture({ created_date: NEW });
    const paid = userFixture({ created_date: NEW, plan: 'creator' });
    expect(tourActive(trial, desktop)).toBe(true);
    expect(tourActive(trial, { device: 'tablet', forced: false })).toBe(true);
    expect(tourActive(trial, { device: 'mobile', forced: false })).toBe(false);
    expect(tourActive(trial, { device: 'mobile', forced: true })).toBe(false);
    expect(tourActive(paid, desktop)).toBe(false);
    expect(tourActive(paid, { device: 'desktop', forced: true })).toBe(true);
    expect(initialQueue(paid, desktop)).toEqual([]);
    expect(initialQueue(trial, { device: 'mobile', forced: false })).toEqual([]);
  });

  it('two initial sets: the demo group without a subscription starts with the demo; completed steps are left out', () => {
    const demo = userFixture({ created_date: NEW, feature_groups: [{ name: 'demo_project', option: { id: 'demo' } }] });
    expect(initialQueue(demo, desktop)[0]).toBe('demoProjectWelcome_v1');
    const control = userFixture({ created_date: NEW, feature_groups: [{ name: 'demo_project', option: { id: 'control' } }] });
    expect(initialQueue(control, desktop)).not.toContain('demoProjectWelcome_v1');
    const plain = userFixture({ created_date: NEW });
    expect(initialQueue(plain, desktop)[0]).toBe('translateMyOwnVideoButton_v1');
    expect(initialQueue(plain, desktop)).not.toContain('demoProjectWelcome_v1');
    // A demo-group user with a subscription (forced tour) gets the other set.
    const demoPaid = userFixture({ created_date: NEW, plan: 'creator', feature_groups: [{ name: 'demo_project', option: { id: 'demo' } }] });
    expect(initialQueue(demoPaid, { device: 'desktop', forced: true })).not.toContain('demoProjectWelcome_v1');
    const seen = userFixture({ created_date: NEW, onboarding: ['translateMyOwnVideoButton_v1', 'clickToPlay_v1'] });
    const q = initialQueue(seen, desktop);
    expect(q).not.toContain('translateMyOwnVideoButton_v1');
    expect(q).not.toContain('clickToPlay_v1');
    expect(q).toContain('videoPlayerTabs_v1');
  });

  it('voice-clone step off before mid-2024; teamspace discovery on before mid-April 2025', () => {
    const old = initialQueue(userFixture({ created_date: '2024-03-10T00:00:00Z' }), desktop);
    expect(old).not.toContain('customizeVoiceClone_v1');
    expect(old).toContain('discoverTeamspace_v1');
    const mid = initialQueue(userFixture({ created_date: '2024-09-10T00:00:00Z' }), desktop);
    expect(mid).toContain('customizeVoiceClone_v1');
    expect(mid).toContain('discoverTeamspace_v1');
    const fresh = initialQueue(userFixture({ created_date: '2025-04-20T00:00:00Z' }), desktop);
    expect(fresh).toContain('customizeVoiceClone_v1');
    expect(fresh).not.toContain('discoverTeamspace_v1');
  });

  it('one step at a time: the first queued step on the page, the chained one first after a close', () => {
    const state = { queue: ['translateMyOwnVideoButton_v1', 'clickToPlay_v1', 'videoPlayerTabs_v1', 'changeTextSection_v1'] as TourStepId[], current: null, done: [] };
    const onPage = new Set<TourStepId>(['clickToPlay_v1', 'videoPlayerTabs_v1', 'changeTextSection_v1']);
    expect(pickCurrent(state, (id) => onPage.has(id))).toBe('clickToPlay_v1');
    const r = closeStep(state, 'clickToPlay_v1');
    expect(r.state.done).toEqual(['clickToPlay_v1']);
    expect(r.state.queue).not.toContain('clickToPlay_v1');
    expect(r.next).toBe('videoPlayerTabs_v1');
    expect(pickCurrent(r.state, (id) => onPage.has(id), 'changeTextSection_v1')).toBe('changeTextSection_v1');
    expect(pickCurrent(r.state, () => false)).toBeNull();
  });
});

function mount(ui: React.ReactNode, device: 'desktop' | 'mobile' = 'desktop') {
  const store = createStore();
  store.set(deviceTypeAtom, device);
  return render(
    <AppProvider i18n={en}>
      <SWRConfig value={{ provider: () => new Map() }}>
        <JotaiProvider store={store}>{ui}</JotaiProvider>
      </SWRConfig>
    </AppProvider>,
  );
}

function Page({ editor = false }: { editor?: boolean }) {
  return (
    <div>
      <div className="Polaris-Page-Header">
        <button type="button">Translate video</button>
      </div>
      <ul>
        <li>
          <a data-item="settings_members" href="/account">
            Settings & members
          </a>
        </li>
      </ul>
      {editor ? (
        <div className="ed-page">
          <video className="ed-video" />
          <div role="tablist" />
        </div>
      ) : null}
    </div>
  );
}

describe('tour on screen', () => {
  it('shows the first step beside its element; closing saves the seen set and shows the next one', async () => {
    const saved: unknown[] = [];
    server.use(
      http.patch('*/api/users/current', async ({ request }) => {
        const body = (await request.json()) as { onboarding: string[] };
        saved.push(body);
        return HttpResponse.json(userFixture({ created_date: NEW, onboarding: body.onboarding }));
      }),
    );
    const user = userFixture({ created_date: NEW });
    mount(
      <>
        <Page />
        <Tour user={user} />
      </>,
    );
    const first = await screen.findByRole('complementary', { name: 'Translate your own video' });
    expect(first.getAttribute('data-tour-step')).toBe('translateMyOwnVideoButton_v1');
    expect(screen.getAllByRole('complementary')).toHaveLength(1);
    await userEvent.click(within(first).getByRole('button', { name: 'Got it' }));
    await waitFor(() => expect(saved).toEqual([{ onboarding: ['translateMyOwnVideoButton_v1'] }]));
    // The next step whose element is on the page (the discovery step is not for accounts of 2025-06).
    expect(await screen.findByRole('complementary', { name: 'Invite your team' })).toBeTruthy();
    expect(screen.queryByRole('complementary', { name: 'Translate your own video' })).toBeNull();
  });

  it('chains: closing a step shows its chained step, "Skip tour" saves every queued step', async () => {
    const saved: string[][] = [];
    server.use(
      http.patch('*/api/users/current', async ({ request }) => {
        const body = (await request.json()) as { onboarding: string[] };
        saved.push(body.onboarding);
        return HttpResponse.json(userFixture({ created_date: NEW, onboarding: body.onboarding }));
      }),
    );
    const user = userFixture({ created_date: NEW, onboarding: ['translateMyOwnVideoButton_v1', 'manageTeamspace_v1'] });
    mount(
      <>
        <Page editor />
        <Tour user={user} />
      </>,
    );
    const play = await screen.findByRole('complementary', { name: 'Watch it' });
    await userEvent.click(within(play).getByRole('button', { name: 'Next' }));
    const tabs = await screen.findByRole('complementary', { name: 'Original and translated' });
    await userEvent.click(within(tabs).getByRole('button', { name: 'Skip tour' }));
    await waitFor(() => expect(screen.queryByRole('complementary')).toBeNull());
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(saved[1]).toEqual(expect.arrayContaining(['translateMyOwnVideoButton_v1', 'clickToPlay_v1', 'videoPlayerTabs_v1', 'downloadVideo_v1']));
  });

  it('shows nothing to paid users, on mobile, or when the steps were seen; forced shows it to a paid user', async () => {
    const { unmount } = mount(
      <>
        <Page />
        <Tour user={userFixture({ created_date: NEW, plan: 'business' })} />
      </>,
    );
    await screen.findByText('Translate video');
    expect(screen.queryByRole('complementary')).toBeNull();
    unmount();
    const m = mount(
      <>
        <Page />
        <Tour user={userFixture({ created_date: NEW })} />
      </>,
      'mobile',
    );
    await screen.findByText('Translate video');
    expect(screen.queryByRole('complementary')).toBeNull();
    m.unmount();
    localStorage.setItem(STORAGE_KEYS.onboardingForce, '1');
    mount(
      <>
        <Page />
        <Tour user={userFixture({ created_date: NEW, plan: 'business' })} />
      </>,
    );
    expect(await screen.findByRole('complementary', { name: 'Translate your own video' })).toBeTruthy();
  });
});

describe('survey prompt', () => {
  const survey = { id: 'customer_survey_v1', title: 'How did you hear about us?', questions: ['YouTube', 'Other'] };

  it('sends the chosen answers once; Send is disabled until an answer is chosen', async () => {
    const sent: unknown[] = [];
    server.use(
      http.post('*/api/survey/add', async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({ ok: true }, { status: 201 });
      }),
    );
    mount(<SurveyPrompt surveys={[survey]} />);
    const dialog = await screen.findByRole('dialog', { name: survey.title });
    const send = within(dialog).getByRole('button', { name: 'Send' });
    expect(send.getAttribute('aria-disabled') === 'true' || (send as HTMLButtonElement).disabled).toBe(true);
    await userEvent.click(within(dialog).getByLabelText('YouTube'));
    await userEvent.click(within(dialog).getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(sent).toEqual([{ survey_id: 'customer_survey_v1', answers: ['YouTube'], comment: '' }]);
  });

  it('"Not now" rejects it', async () => {
    const rejected: unknown[] = [];
    server.use(
      http.post('*/api/survey/reject', async ({ request }) => {
        rejected.push(await request.json());
        return HttpResponse.json({ ok: true });
      }),
    );
    mount(<SurveyPrompt surveys={[survey]} />);
    await userEvent.click(await screen.findByRole('button', { name: 'Not now' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(rejected).toEqual([{ survey_id: 'customer_survey_v1' }]);
  });
});
