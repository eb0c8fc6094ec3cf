// The Voice Clone Library page against an in-memory /api/voice_preset (msw): the list with a voice being made
// (statuses polled until done), voice matching named as such, the tutorial banner saved when closed, rename,
// accent and expressiveness saved, a sample played at the chosen settings, delete with confirmation, a new voice
// from a recording (upload then create), the clone limit, and the locked state of plans without the library.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { VoicePreset } from '../../contract/schemas/voice-preset';
import { renderApp, settingsFixture, useApi } from './app-harness';
import { server } from './msw';

vi.mock('../../src/features/projects', () => ({ ProjectsHome: () => <h1>Projects home page</h1>, FolderPage: () => null }));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => null }));
vi.mock('../../src/features/spaces', () => ({
  TeamspaceSwitcher: () => null,
  TeamspaceModals: () => null,
  useOpenTeamspaceDialog: () => () => {},
}));

const profile = { median_hz: 104.2, range_st: 4.1, spectral_tilt: 820, speech_rate: 4.3, speech_sec: 41, gender: 'male' as const };
function preset(o: Partial<VoicePreset> = {}): VoicePreset {
  const id = o.id ?? 'p1';
  return {
    id, space_id: 'sp-default', label: 'Narrator', similarity_boost: 0.75, stability: 0.5, is_temporary: false, project_id: null, speaker_id: null,
    status: 'done', error: null, engine: 'builtin', voice_id: `preset:${id}`, gender: 'male', profile, sample_duration: 41,
    created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-01T10:00:00Z', ...o,
  };
}

let store: VoicePreset[];
let limit: number | null;
let calls: string[];
let tutorialShown: boolean;
let statusPolls: number;
const played: string[] = [];

beforeEach(() => {
  store = [preset(), preset({ id: 'p2', label: 'Guest', status: 'processing', profile: { ...profile, gender: 'female', median_hz: 201 }, gender: 'female' })];
  limit = 10;
  calls = [];
  tutorialShown = false;
  statusPolls = 0;
  played.length = 0;
  class FakeAudio {
    onended: (() => void) | null = null;
    constructor(readonly src: string) {
      played.push(src);
    }
    play() {
      return Promise.resolve();
    }
    pause() {}
  }
  vi.stubGlobal('Audio', FakeAudio);
  URL.createObjectURL = () => 'blob:sample';
  server.use(
    http.get('*/api/voice_preset', () => HttpResponse.json({ presets: store, limit, used: store.length, engine: 'builtin' })),
    http.get('*/api/voice_preset/statuses', ({ request }) => {
      statusPolls++;
      const ids = new URL(request.url).searchParams.get('ids')!.split(',');
      // the second poll finds the voice made
      if (statusPolls >= 2) store = store.map((p) => (ids.includes(p.id) ? { ...p, status: 'done' } : p));
      return HttpResponse.json(store.filter((p) => ids.includes(p.id)).map((p) => ({ id: p.id, status: p.status, error: null })));
    }),
    http.patch('*/api/voice_preset/:id', async ({ params, request }) => {
      const body = (await request.json()) as { label: string };
      calls.push(`PATCH ${params.id} ${JSON.stringify(body)}`);
      store = store.map((p) => (p.id === params.id ? { ...p, ...body } : p));
      return HttpResponse.json(store.find((p) => p.id === params.id));
    }),
    http.post('*/api/voice_preset/:id/update_settings', async ({ params, request }) => {
      const body = (await request.json()) as { similarity_boost: number; stability: number };
      calls.push(`SETTINGS ${params.id} ${body.similarity_boost} ${body.stability.toFixed(2)}`);
      store = store.map((p) => (p.id === params.id ? { ...p, ...body } : p));
      return HttpResponse.json(store.find((p) => p.id === params.id));
    }),
    http.get('*/api/voice_preset/:id/sample', ({ params, request }) => {
      const q = new URL(request.url).searchParams;
      calls.push(`SAMPLE ${params.id} ${q.get('language')} ${q.get('similarity_boost')} ${q.get('stability')}`);
      return new HttpResponse(new Uint8Array([82, 73, 70, 70]), { headers: { 'content-type': 'audio/wav' } });
    }),
    http.delete('*/api/voice_preset/:id', ({ params }) => {
      calls.push(`DELETE ${params.id}`);
      store = store.filter((p) => p.id !== params.id);
      return HttpResponse.json({ id: params.id, status: 'deleted' });
    }),
    http.post('*/api/library/media', async ({ request }) => {
      const form = await request.formData();
      calls.push(`UPLOAD ${form.get('kind')} ${(form.get('file') as File).name}`);
      return HttpResponse.json({ id: 'm1', status: 'uploaded', kind: 'audio' });
    }),
    http.post('*/api/voice_preset/create', async ({ request }) => {
      const body = (await request.json()) as { label: string; media_id: string };
      calls.push(`CREATE ${body.label} ${body.media_id}`);
      const p = preset({ id: 'p3', label: body.label, status: 'processing' });
      store = [p, ...store];
      return HttpResponse.json(p, { status: 201 });
    }),
    http.get('*/api/users/voice_tutorials', () =>
      HttpResponse.json({ voice_preset_tutorial_displayed: tutorialShown, instant_voice_clone_tooltip_displayed: false }),
    ),
    http.post('*/api/users/set_voice_preset_tutorial_displayed', () => {
      tutorialShown = true;
      calls.push('TUTORIAL');
      return HttpResponse.json({ voice_preset_tutorial_displayed: true, instant_voice_clone_tooltip_displayed: false });
    }),
  );
});
afterEach(() => {
  vi.unstubAllGlobals();
});

const card = (label: string) => screen.getByDisplayValue(label).closest('[data-preset]') as HTMLElement;

describe('the Voice Clone Library page', () => {
  it('lists the voices, follows one being made, renames, tunes, plays and deletes', async () => {
    useApi({ settings: settingsFixture({ visible: { voice_presets: true } }) });
    renderApp({ path: '/spaces/sp-default/voices' });
    await screen.findByDisplayValue('Narrator');
    expect(screen.getByText('Voice matching, not cloning')).toBeTruthy();
    expect(screen.getByText('2 of 10 voices on your plan')).toBeTruthy();
    expect(screen.getByText(/Male voice · pitch 104 Hz/)).toBeTruthy();
    // the voice being made is polled until it is done
    expect(within(card('Guest')).getByText('Processing')).toBeTruthy();
    await waitFor(() => expect(within(card('Guest')).getByText('Ready')).toBeTruthy(), { timeout: 8000 });

    // the tutorial is saved as shown when closed
    fireEvent.click(within(screen.getByText('How voices work').closest('.Polaris-Banner') as HTMLElement).getByRole('button'));
    await waitFor(() => expect(calls).toContain('TUTORIAL'));

    // rename (saved when the field loses focus)
    const name = screen.getByDisplayValue('Narrator');
    fireEvent.change(name, { target: { value: 'Host' } });
    fireEvent.blur(name);
    await waitFor(() => expect(calls).toContain('PATCH p1 {"label":"Host"}'));

    // accent and expressiveness
    const host = card('Host');
    const save = within(host).getByRole('button', { name: 'Save settings' }) as HTMLButtonElement;
    const off = (b: HTMLButtonElement) => b.disabled || b.getAttribute('aria-disabled') === 'true';
    expect(off(save)).toBe(true);
    fireEvent.change(within(host).getByLabelText('Accent'), { target: { value: '100' } });
    fireEvent.change(within(host).getByLabelText('Expressiveness'), { target: { value: '80' } });
    await waitFor(() => expect(off(save)).toBe(false));
    fireEvent.click(save);
    await waitFor(() => expect(calls).toContain('SETTINGS p1 1 0.20'));

    // a sample at the chosen settings
    fireEvent.click(within(host).getByRole('button', { name: 'Play sample' }));
    await waitFor(() => expect(calls.some((c) => c.startsWith('SAMPLE p1 en 1 0.2'))).toBe(true));
    await waitFor(() => expect(played).toEqual(['blob:sample']));

    // delete, after confirming
    fireEvent.click(within(host).getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    expect(within(dialog).getByText('Delete "Host"?')).toBeTruthy();
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete voice' }));
    await waitFor(() => expect(calls).toContain('DELETE p1'));
    await waitFor(() => expect(screen.queryByDisplayValue('Host')).toBeNull());
  });

  it('makes a voice from a recording: upload, then create', async () => {
    useApi({ settings: settingsFixture({ visible: { voice_presets: true } }) });
    renderApp({ path: '/spaces/sp-default/voices' });
    await screen.findByDisplayValue('Narrator');
    fireEvent.click(screen.getByRole('button', { name: 'New voice from a recording' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create voice' }));
    await within(dialog).findByText('Give the voice a name');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Anna' } });
    fireEvent.change(within(dialog).getByLabelText('Recording'), {
      target: { files: [new File([new Uint8Array([1, 2, 3])], 'anna.wav', { type: 'audio/wav' })] },
    });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create voice' }));
    await waitFor(() => expect(calls).toEqual(['UPLOAD audio anna.wav', 'CREATE Anna m1']));
    await screen.findByDisplayValue('Anna');
  });

  it('at the limit, says so and offers no new voice', async () => {
    limit = 2;
    useApi({ settings: settingsFixture({ visible: { voice_presets: true } }) });
    renderApp({ path: '/spaces/sp-default/voices' });
    await screen.findByText(/2 of 2 voices on your plan: delete one to make another/);
    const b = screen.getByRole('button', { name: 'New voice from a recording' }) as HTMLButtonElement;
    expect(b.disabled || b.getAttribute('aria-disabled') === 'true').toBe(true);
  });

  it('is locked on plans without the Voice Clone Library', async () => {
    useApi({ settings: settingsFixture({ visible: { voice_presets: false } }) });
    renderApp({ path: '/spaces/sp-default/voices' });
    await screen.findByText('The Voice Clone Library is part of the Creator Pro plan');
    expect(screen.getByRole('button', { name: 'Upgrade' })).toBeTruthy();
  });
});
