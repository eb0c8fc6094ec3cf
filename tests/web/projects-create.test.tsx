import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { TEXT } from '../../contract/errors';
import type { Project } from '../../contract/schemas/project';
import type { Settings } from '../../contract/schemas/settings';
import type { Credits } from '../../contract/schemas/space';
import { getMoreMinutesAtom, globalErrorAtom } from '../../src/lib/state';
import { CreateDubModal } from '../../src/features/projects/components/CreateDubModal';
import { SAME_LANGUAGE } from '../../src/features/projects/lib/create-form';
import { appHandlers, credits, project, renderRoute, server, SETTINGS, SPACE } from './projects-harness';

const LINK = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

function setup(o: { credits?: Credits; duration?: number; create?: () => Response; settings?: Settings } = {}) {
  const created: unknown[] = [];
  const infoCalls: string[] = [];
  server.use(
    ...appHandlers(),
    http.get('*/api/library/info/video', ({ request }) => {
      infoCalls.push(new URL(request.url).searchParams.get('link') ?? '');
      return HttpResponse.json({ link: LINK, title: 'Never gonna', duration: o.duration ?? 200, thumbnail: null });
    }),
    http.post('*/api/project/create_transcript', async ({ request }) => {
      created.push(await request.json());
      return o.create ? o.create() : HttpResponse.json(project({ id: 'new', status: 'created' }));
    }),
  );
  const onCreated = vi.fn<(p: Project) => void>();
  const r = renderRoute(
    '/spaces/:spaceId',
    `/spaces/${SPACE}`,
    <CreateDubModal open onClose={() => {}} spaceId={SPACE} settings={o.settings ?? SETTINGS} credits={o.credits ?? credits(10)} onCreated={onCreated} />,
  );
  return { ...r, created, infoCalls, onCreated };
}

async function useLink(link: string) {
  await userEvent.click(screen.getByRole('button', { name: 'Paste a link' }));
  const input = screen.getByLabelText('Video link');
  await userEvent.click(input);
  await userEvent.paste(link);
  await userEvent.tab();
}
const start = () => userEvent.click(screen.getByRole('button', { name: 'Start translation' }));

describe('create dub: validation', { timeout: 20_000 }, () => {
  it('refuses a link that is not YouTube, Drive or Vimeo with the spec text', async () => {
    const { created, infoCalls } = setup();
    await useLink('https://example.com/movie.mp4');
    expect(await screen.findByText(TEXT.incorrectLink)).toBeTruthy();
    await start();
    expect(created).toHaveLength(0);
    expect(infoCalls).toHaveLength(0);
  });

  it('asks for a file in upload mode', async () => {
    const { created } = setup();
    await start();
    expect(await screen.findAllByText(TEXT.fieldRequired)).not.toHaveLength(0);
    expect(created).toHaveLength(0);
  });

  it('refuses the same source and target language', async () => {
    const { created } = setup();
    await useLink(LINK);
    await userEvent.selectOptions(screen.getByLabelText('Target language'), 'en');
    expect(await screen.findByText(SAME_LANGUAGE)).toBeTruthy();
    await start();
    expect(created).toHaveLength(0);
  });

  it('checks the minutes before starting: 200 s needs 4 minutes, 3 are not enough', async () => {
    const { created, store, mem } = setup({ credits: credits(3), duration: 200 });
    await useLink(LINK);
    expect(await screen.findByText('Not enough minutes')).toBeTruthy();
    expect(screen.getByText('This video needs 4 minutes, you have 3 available.')).toBeTruthy();
    await start();
    expect(created).toHaveLength(0);
    // More minutes open in place (the dialog stays, with what was entered): no jump to another page.
    const before = mem.history.length;
    await userEvent.click(screen.getByRole('button', { name: 'Get more minutes' }));
    expect(store.get(getMoreMinutesAtom)).toBe(true);
    expect(mem.history.length).toBe(before);
  });

  it('starts with enough minutes and sends the form', async () => {
    const { created, onCreated } = setup({ credits: credits(10, 6), duration: 240 });
    await useLink(LINK);
    await waitFor(() => expect((screen.getByLabelText('Project name') as HTMLInputElement).value).toBe('Never gonna'));
    expect(screen.getByText('This video uses 4 minutes of your 4 available.')).toBeTruthy();
    await userEvent.selectOptions(screen.getByLabelText('Number of speakers'), '2');
    await start();
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(created).toEqual([{ name: 'Never gonna', src_lang: 'en', dst_lang: 'es', link: LINK, num_speakers: 2 }]);
    expect(onCreated.mock.calls[0][0].id).toBe('new');
  });

  it('reports a 402 that ends with credits available and stays', async () => {
    const { store } = setup({ create: () => HttpResponse.json({ detail: 'You have 0 credits available.' }, { status: 402 }) });
    await useLink(LINK);
    await waitFor(() => expect((screen.getByLabelText('Project name') as HTMLInputElement).value).toBe('Never gonna'));
    await start();
    expect(await screen.findByText('You have 0 credits available.')).toBeTruthy();
    expect(store.get(globalErrorAtom)).toBe('none');
  });

  it('runs the payment path on any other 402', async () => {
    const { store, mem, created } = setup({ create: () => HttpResponse.json({ detail: 'Payment required' }, { status: 402 }) });
    await useLink(LINK);
    await waitFor(() => expect((screen.getByLabelText('Project name') as HTMLInputElement).value).toBe('Never gonna'));
    await start();
    await waitFor(() => expect(store.get(globalErrorAtom)).toBe('paymentRequired'));
    expect(created).toHaveLength(1);
    expect(mem.history[mem.history.length - 1]).toBe('/pricing');
  });

  it('offers a dictionary and SRT files when the plan has them, and sends them', async () => {
    const on = { enabled: true, visible: true, metadata: {} };
    const settings: Settings = {
      ...SETTINGS,
      scope_settings: { ...SETTINGS.scope_settings, available_features: { ...SETTINGS.scope_settings.available_features, glossary: on, srt_upload: on } },
    };
    const G = '22222222-2222-4222-8222-222222222222';
    const glossaryCalls: URLSearchParams[] = [];
    server.use(
      http.get('*/api/glossary', ({ request }) => {
        glossaryCalls.push(new URL(request.url).searchParams);
        return HttpResponse.json([{ glossary_id: G, name: 'Brand terms' }]);
      }),
      http.post('*/api/library/media', () => HttpResponse.json({ id: '33333333-3333-4333-8333-333333333333', status: 'uploaded' })),
    );
    const { created, onCreated } = setup({ settings });
    await useLink(LINK);
    await userEvent.selectOptions(await screen.findByLabelText('Dictionary (optional)'), G);
    expect(glossaryCalls[0].get('source_lang')).toBe('en');
    expect(glossaryCalls[0].get('target_lang')).toBe('es');
    const srt = new File(['1\n00:00:00,000 --> 00:00:01,000\nHola\n'], 'target.srt', { type: 'application/x-subrip' });
    await userEvent.upload(screen.getByLabelText('Target subtitles (optional)'), srt);
    expect(await screen.findByText('target.srt')).toBeTruthy();
    const bad = new File(['x'], 'notes.txt', { type: 'text/plain' });
    await userEvent.upload(screen.getByLabelText('Source subtitles (optional)'), bad, { applyAccept: false });
    expect(await screen.findByText('Choose a .srt subtitle file')).toBeTruthy();
    await start();
    expect(await screen.findByText('Wait for the subtitle files to upload, or remove them')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Remove Source subtitles (optional)' }));
    await start();
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(created[0]).toMatchObject({ glossary_id: G, dst_srt_media_id: '33333333-3333-4333-8333-333333333333' });
    expect(created[0]).not.toHaveProperty('src_srt_media_id');
  });

  it('reads the link before starting when Start comes first, and checks its minutes', async () => {
    const { created, infoCalls } = setup({ credits: credits(3), duration: 200 });
    await userEvent.click(screen.getByRole('button', { name: 'Paste a link' }));
    await userEvent.click(screen.getByLabelText('Video link'));
    await userEvent.paste(LINK);
    await start();
    expect(await screen.findByText('Not enough minutes')).toBeTruthy();
    expect(infoCalls).toEqual([LINK]);
    expect(created).toHaveLength(0);
  });

  it('shows why a link cannot be used and does not start', async () => {
    const { created } = setup();
    server.use(http.get('*/api/library/info/video', () => HttpResponse.json({ detail: 'Live streams cannot be dubbed' }, { status: 400 })));
    await useLink(LINK);
    expect(await screen.findByText('Live streams cannot be dubbed')).toBeTruthy();
    await start();
    expect(created).toHaveLength(0);
  });

  it('shows the languages of the settings with flags', async () => {
    setup();
    const target = screen.getByLabelText('Target language') as HTMLSelectElement;
    expect([...target.options].map((o) => o.textContent)).toEqual(['🇺🇸 English', '🇪🇸 Spanish (Español)', '🇫🇷 French (Français)']);
    expect(target.value).toBe('es');
  });
});
