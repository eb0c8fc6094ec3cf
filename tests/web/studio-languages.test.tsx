// Several target languages (issue 15) in the front end: the create form sends dst_langs when the plan allows
// (an upgrade offer otherwise), and the list shows each language project under its source.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { Project } from '../../contract/schemas/project';
import type { Settings } from '../../contract/schemas/settings';
import { upgradeModalAtom } from '../../src/lib/state';
import { ProjectsHome } from '../../src/features/projects';
import { CreateDubModal } from '../../src/features/projects/components/CreateDubModal';
import { groupLanguages } from '../../src/features/projects/lib/grouping';
import { appHandlers, credits, project, renderRoute, server, SETTINGS, SPACE } from './projects-harness';

const LINK = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';

function settingsWith(multilanguage: { enabled: boolean; visible: boolean }): Settings {
  return {
    ...SETTINGS,
    scope_settings: {
      ...SETTINGS.scope_settings,
      available_features: { ...SETTINGS.scope_settings.available_features, multilanguage: { ...multilanguage, metadata: {} } },
    },
  };
}

function setup(settings: Settings) {
  const created: unknown[] = [];
  server.use(
    ...appHandlers(),
    http.get('*/api/library/info/video', () => HttpResponse.json({ link: LINK, title: 'Talk', duration: 60, thumbnail: null })),
    http.post('*/api/project/create_transcript', async ({ request }) => {
      created.push(await request.json());
      return HttpResponse.json(project({ id: 'new', status: 'created' }));
    }),
  );
  const onCreated = vi.fn<(p: Project) => void>();
  const r = renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, (
    <CreateDubModal open onClose={() => {}} spaceId={SPACE} settings={settings} credits={credits(10)} onCreated={onCreated} />
  ));
  return { ...r, created, onCreated };
}

async function useLink() {
  await userEvent.click(screen.getByRole('button', { name: 'Paste a link' }));
  await userEvent.click(screen.getByLabelText('Video link'));
  await userEvent.paste(LINK);
  await userEvent.tab();
  await waitFor(() => expect((screen.getByLabelText('Project name') as HTMLInputElement).value).toBe('Talk'));
}

describe('create in several languages', { timeout: 20_000 }, () => {
  it('adds languages and sends them as dst_langs, the main one first', async () => {
    const { created, onCreated } = setup(settingsWith({ enabled: true, visible: true }));
    await useLink();
    const more = screen.getByLabelText('More target languages (optional)');
    // The source and the main target are not offered again.
    expect(within(more).queryByRole('option', { name: /Spanish/ })).toBeNull();
    await userEvent.selectOptions(more, 'fr');
    expect(screen.getByText('2 projects: each dub is charged when you generate it.')).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Start translation' }));
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(created).toEqual([{ name: 'Talk', src_lang: 'en', dst_lang: 'es', dst_langs: ['es', 'fr'], link: LINK }]);
  });

  it('a removed language is not sent', async () => {
    const { created, onCreated } = setup(settingsWith({ enabled: true, visible: true }));
    await useLink();
    await userEvent.selectOptions(screen.getByLabelText('More target languages (optional)'), 'fr');
    await userEvent.click(screen.getByRole('button', { name: /Remove .*French/ }));
    await userEvent.click(screen.getByRole('button', { name: 'Start translation' }));
    await waitFor(() => expect(onCreated).toHaveBeenCalled());
    expect(created[0]).not.toHaveProperty('dst_langs');
  });

  it('without the feature, a locked offer opens the upgrade modal instead', async () => {
    const { store } = setup(settingsWith({ enabled: false, visible: true }));
    expect(screen.queryByLabelText('More target languages (optional)')).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Translate into several languages at once' }));
    expect(store.get(upgradeModalAtom)).toEqual({ feature: 'multilanguage' });
  });
});

describe('the list groups the languages of one video', () => {
  it('puts each language project right after its source', () => {
    const src = project({ id: 'src', name: 'Talk' });
    const other = project({ id: 'other', name: 'Other' });
    const ca = project({ id: 'ca', name: 'Talk (CA)', dst_lang: 'ca', copied_from: 'src' });
    const de = project({ id: 'de', name: 'Talk (DE)', dst_lang: 'de', copied_from: 'src' });
    const orphan = project({ id: 'orphan', name: 'Gone (FR)', copied_from: 'deleted' });
    const out = groupLanguages([de, other, ca, src, orphan]);
    expect(out.map((x) => [x.project.id, x.parent?.id ?? null])).toEqual([
      ['other', null], ['src', null], ['ca', 'src'], ['de', 'src'], ['orphan', null],
    ]);
  });

  it('shows the language projects under their source, and the languages still to come', async () => {
    const all = [
      project({ id: 'ca', name: 'Talk (CA)', dst_lang: 'ca', copied_from: 'src', status: 'translation_done' }),
      project({ id: 'src', name: 'Talk', dst_lang: 'es', status: 'merging_done', pending_dst_langs: [] }),
      project({ id: 'new', name: 'Fresh', dst_lang: 'es', status: 'transcription_started', pending_dst_langs: ['fr'] }),
    ];
    server.use(...appHandlers(), http.get('*/api/project/paginated', () => HttpResponse.json({ data: all, offset: 0, total: all.length })));
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    const items = await screen.findAllByRole('listitem');
    const names = items.map((i) => i.querySelector('.pj-name')?.textContent);
    expect(names).toEqual(['Talk', 'Talk (CA)', 'Fresh']);
    expect(items[1]!.getAttribute('aria-label')).toBe('Talk (CA): CA version of Talk');
    expect(within(items[1]!).getByText('Another language of “Talk”')).toBeTruthy();
    expect(within(items[2]!).getByText("FR: starts when this video's speakers are ready")).toBeTruthy();
    expect(within(items[0]!).getByText('EN → ES')).toBeTruthy();
  });
});
