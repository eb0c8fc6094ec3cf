// The words recognition listens for (issue 33), in the UI: pasted in the create dialog under More options (sent as
// asr_words, cleaned; a list over the limits is refused before sending), and viewed and edited in the editor's side
// panel (GET/PUT {id}/asr_words, Save).
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { ASR_WORDS_MAX, type Project, type Segment } from '../../contract/schemas/project';
import { CreateDubModal } from '../../src/features/projects/components/CreateDubModal';
import { ProjectEditor } from '../../src/features/editor/components/EditorPage';
import { appHandlers, credits, project, renderRoute, segment, server, SETTINGS, SPACE } from './projects-harness';

const LINK = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const FIELD = 'Words to listen for (names, products, places — one per line)';

function setupCreate() {
  const created: unknown[] = [];
  server.use(
    ...appHandlers(),
    http.get('*/api/library/info/video', () => HttpResponse.json({ link: LINK, title: 'Launch', duration: 60, thumbnail: null })),
    http.post('*/api/project/create_transcript', async ({ request }) => {
      created.push(await request.json());
      return HttpResponse.json(project({ id: 'new', status: 'created' }));
    }),
  );
  const onCreated = vi.fn<(p: Project) => void>();
  renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <CreateDubModal open onClose={() => {}} spaceId={SPACE} settings={SETTINGS} credits={credits(10)} onCreated={onCreated} />);
  return { created, onCreated };
}

async function useLink() {
  await userEvent.click(screen.getByRole('button', { name: 'Paste a link' }));
  await userEvent.click(screen.getByLabelText('Video link'));
  await userEvent.paste(LINK);
  await userEvent.tab();
  await waitFor(() => expect((screen.getByLabelText('Project name') as HTMLInputElement).value).toBe('Launch'));
}
const start = () => userEvent.click(screen.getByRole('button', { name: 'Start translation' }));

describe('create dialog: words to listen for', { timeout: 20_000 }, () => {
  it('is collapsed under More options, and sends the pasted list cleaned (one entry a line)', async () => {
    const { created, onCreated } = setupCreate();
    await useLink();
    expect(screen.queryByLabelText(FIELD)).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'More options' }));
    await userEvent.click(screen.getByLabelText(FIELD));
    await userEvent.paste('  Zephyrix \n\nOuarzazate\nzephyrix\nTromsø   Nord\n');
    await start();
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(created).toEqual([{ name: 'Launch', src_lang: 'en', dst_lang: 'es', link: LINK, asr_words: ['Zephyrix', 'Ouarzazate', 'Tromsø Nord'] }]);
  });

  it('refuses a list over the limit with a message and does not start', async () => {
    const { created, onCreated } = setupCreate();
    await useLink();
    await userEvent.click(screen.getByRole('button', { name: 'More options' }));
    await userEvent.click(screen.getByLabelText(FIELD));
    await userEvent.paste(Array.from({ length: ASR_WORDS_MAX + 1 }, (_, i) => `w${i}`).join('\n'));
    expect(await screen.findByText(`At most ${ASR_WORDS_MAX} words (this list has ${ASR_WORDS_MAX + 1})`)).toBeTruthy();
    await start();
    // fixed, it starts: the one request sent is the fixed list's (the refused one was never sent)
    await userEvent.clear(screen.getByLabelText(FIELD));
    await userEvent.click(screen.getByLabelText(FIELD));
    await userEvent.paste('Nuvexa');
    expect(screen.queryByText(/^At most/)).toBeNull();
    await start();
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(created).toEqual([expect.objectContaining({ asr_words: ['Nuvexa'] })]);
  });
});

function setupEditor(words: string[], segs: Segment[] = [segment(0)]) {
  const puts: unknown[] = [];
  let stored = words;
  server.use(
    ...appHandlers(),
    http.get('*/api/project/:id', () => HttpResponse.json(project())),
    http.get('*/api/project/:id/transcript', () => HttpResponse.json({ segments: segs })),
    http.get('*/api/project/:id/voice_pool', () => HttpResponse.json({ voices: [] })),
    http.get('*/api/project/:id/asr_words', () => HttpResponse.json({ words: stored })),
    http.put('*/api/project/:id/asr_words', async ({ request }) => {
      const body = (await request.json()) as { words: string[] };
      puts.push(body);
      stored = body.words;
      return HttpResponse.json({ words: stored });
    }),
  );
  renderRoute('/spaces/:spaceId/project/:projectId', `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
  return { puts };
}

describe('editor: words to listen for', { timeout: 20_000 }, () => {
  it('shows the stored list, and saves an edited one with Save', async () => {
    const { puts } = setupEditor(['Zephyrix', 'Nuvexa']);
    const field = (await screen.findByLabelText(FIELD)) as HTMLTextAreaElement;
    await waitFor(() => expect(field.value).toBe('Zephyrix\nNuvexa'));
    expect(screen.getByText(/applies the next time this video is transcribed/)).toBeTruthy();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save.hasAttribute('disabled') || save.getAttribute('aria-disabled') === 'true').toBe(true);
    await userEvent.click(field);
    await userEvent.paste('\nKalvaro\n nuvexa ');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(puts).toEqual([{ words: ['Zephyrix', 'Nuvexa', 'Kalvaro'] }]));
    expect(await screen.findByText('Word list saved')).toBeTruthy();
    await waitFor(() => expect((screen.getByLabelText(FIELD) as HTMLTextAreaElement).value).toBe('Zephyrix\nNuvexa\nKalvaro'));
  });

  it('does not save a list over the limit', async () => {
    const { puts } = setupEditor([]);
    const field = await screen.findByLabelText(FIELD);
    await waitFor(() => expect(field.hasAttribute('disabled')).toBe(false));
    await userEvent.click(field);
    await userEvent.paste(Array.from({ length: ASR_WORDS_MAX + 1 }, (_, i) => `w${i}`).join('\n'));
    expect(await screen.findByText(`At most ${ASR_WORDS_MAX} words (this list has ${ASR_WORDS_MAX + 1})`)).toBeTruthy();
    const save = screen.getByRole('button', { name: 'Save' });
    expect(save.hasAttribute('disabled') || save.getAttribute('aria-disabled') === 'true').toBe(true);
    await userEvent.click(save);
    expect(puts).toHaveLength(0);
  });
});
