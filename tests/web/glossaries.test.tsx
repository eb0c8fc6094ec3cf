// The Dictionary page against an in-memory /api/glossary (msw): create a dictionary, add, edit in place, search
// and delete terms, import a CSV (bad rows listed by line, good rows kept; a wrong encoding shows the server's
// error) and the locked state of plans without the Dictionary.
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { Glossary, GlossaryEntry } from '../../contract/schemas/glossary';
import type { Settings } from '../../contract/schemas/settings';
import { renderApp, settingsFixture, useApi } from './app-harness';
import { server } from './msw';

vi.mock('../../src/features/projects', () => ({ ProjectsHome: () => <h1>Projects home page</h1>, FolderPage: () => null }));
vi.mock('../../src/features/editor', () => ({ ProjectPage: () => null }));
vi.mock('../../src/features/spaces', () => ({
  TeamspaceSwitcher: () => null,
  TeamspaceModals: () => null,
  useOpenTeamspaceDialog: () => () => {},
}));

const lang = (id: number, value: string, label: string) => ({
  id, value, label, country_code: 'US', country_label: label, is_dialect: false, is_free: false, is_glossary_available: true,
  is_voice_preset_available: true, mean_char_per_syllable: 3, speech_rate: 14, speech_tempo_feature: false, translation_label: label,
  voice_clone: false, voice_clone_beta: false, voice_clone_label: null, voice_preset_dialect: null, voice_preset_dialect_label: null,
});

function settings(enabled: boolean): Settings {
  const s = settingsFixture({ visible: { glossary: enabled } });
  return {
    ...s,
    languages: { transcription: [lang(1, 'en', 'English')], translation: [lang(1, 'en', 'English'), lang(2, 'es', 'Spanish')] },
  } as Settings;
}

let store: Glossary[];
let patches: Array<{ name?: string; entries?: GlossaryEntry[] }>;
let importResponse: () => Response;

const full = (e: Partial<GlossaryEntry> & { source: string }): GlossaryEntry => ({
  target: '', do_not_translate: false, case_sensitive: false, pronunciation: null, ...e,
});

function glossary(o: Partial<Glossary> = {}): Glossary {
  const entries = o.entries ?? [];
  return {
    id: 'g1', glossary_id: 'g1', space_id: 'sp-default', name: 'Brand', source_lang: 'en', target_lang: 'es',
    created_at: '2026-11-01T10:00:00Z', updated_at: '2026-11-01T10:00:00Z', ...o, entries, entries_count: entries.length,
  };
}

beforeEach(() => {
  store = [];
  patches = [];
  importResponse = () => HttpResponse.json({ detail: 'not set' }, { status: 500 });
  server.use(
    http.get('*/api/glossary', () => HttpResponse.json(store.map(({ entries: _e, ...g }) => g))),
    http.get('*/api/glossary/:id', ({ params }) => {
      const g = store.find((x) => x.id === params.id);
      return g ? HttpResponse.json(g) : HttpResponse.json({ detail: 'Dictionary not found' }, { status: 404 });
    }),
    http.post('*/api/glossary', async ({ request }) => {
      // as the server: the dictionary belongs to the Teamspace named by the required space_id query
      const spaceId = new URL(request.url).searchParams.get('space_id');
      if (!spaceId) return HttpResponse.json({ detail: [{ loc: ['query', 'space_id'], msg: 'Field is required', type: 'missing' }] }, { status: 422 });
      const body = (await request.json()) as { name: string; source_lang: string; target_lang: string };
      const g = glossary({ id: `g${store.length + 1}`, glossary_id: `g${store.length + 1}`, space_id: spaceId, ...body });
      store.push(g);
      return HttpResponse.json(g, { status: 201 });
    }),
    http.patch('*/api/glossary/:id', async ({ params, request }) => {
      const body = (await request.json()) as { name?: string; entries?: GlossaryEntry[] };
      patches.push(body);
      const i = store.findIndex((x) => x.id === params.id);
      store[i] = glossary({ ...store[i], ...body, updated_at: new Date(Date.now() + patches.length).toISOString() });
      return HttpResponse.json(store[i]);
    }),
    http.post('*/api/glossary/:id/import', () => importResponse()),
    http.delete('*/api/glossary', ({ request }) => {
      const id = new URL(request.url).searchParams.get('glossary_id');
      store = store.filter((g) => g.id !== id);
      return HttpResponse.json({ glossary_id: id, status: 'deleted' });
    }),
  );
});

const table = () => screen.getByRole('table', { name: 'Terms' });

describe('the Dictionary page', () => {
  it('creates a dictionary from the empty state, then adds, edits in place, searches and deletes terms', async () => {
    useApi({ settings: settings(true) });
    renderApp({ path: '/spaces/sp-default/glossaries' });
    fireEvent.click(await screen.findByRole('button', { name: 'Create a dictionary' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.change(within(dialog).getByLabelText('Name'), { target: { value: 'Product names' } });
    expect((within(dialog).getByLabelText('Source language') as HTMLSelectElement).value).toBe('en');
    expect((within(dialog).getByLabelText('Target language') as HTMLSelectElement).value).toBe('es');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Create' }));
    await screen.findByText(/No terms yet/);
    expect(store).toHaveLength(1);
    expect(store[0]).toMatchObject({ name: 'Product names', source_lang: 'en', target_lang: 'es', space_id: 'sp-default' });

    // Add two terms.
    const form = screen.getByRole('form', { name: 'Add a term' });
    fireEvent.change(within(form).getByLabelText('New term'), { target: { value: 'dashboard' } });
    fireEvent.change(within(form).getByLabelText('Translation'), { target: { value: 'panel' } });
    fireEvent.click(within(form).getByRole('button', { name: 'Add term' }));
    await waitFor(() => expect(within(table()).getByLabelText('Term of dashboard')).toBeTruthy());
    await waitFor(() => expect((within(form).getByLabelText('New term') as HTMLInputElement).value).toBe(''));
    fireEvent.change(within(form).getByLabelText('New term'), { target: { value: 'Acme' } });
    fireEvent.click(within(form).getByLabelText('Do not translate'));
    fireEvent.click(within(form).getByRole('button', { name: 'Add term' }));
    await waitFor(() => expect(within(table()).getByLabelText('Term of Acme')).toBeTruthy());
    await waitFor(() => expect((within(form).getByLabelText('New term') as HTMLInputElement).value).toBe(''));
    expect(patches.at(-1)!.entries).toEqual([full({ source: 'Acme', do_not_translate: true }), full({ source: 'dashboard', target: 'panel' })]);

    // A duplicate is refused before anything is sent.
    const sent = patches.length;
    fireEvent.change(within(form).getByLabelText('New term'), { target: { value: 'ACME' } });
    fireEvent.change(within(form).getByLabelText('Translation'), { target: { value: 'x' } });
    fireEvent.click(within(form).getByLabelText('Do not translate'));
    fireEvent.click(within(form).getByRole('button', { name: 'Add term' }));
    await screen.findByText(/The term "(ACME|Acme)" is already in the dictionary/);
    expect(patches.length).toBe(sent);

    // Edit a translation in place: saved when the field loses focus.
    const target = within(table()).getByLabelText('Translation of dashboard') as HTMLInputElement;
    fireEvent.change(target, { target: { value: 'tablero' } });
    fireEvent.blur(target);
    await waitFor(() => expect(patches.at(-1)!.entries![1]).toEqual(full({ source: 'dashboard', target: 'tablero' })));
    fireEvent.click(within(table()).getByLabelText('Case sensitive Acme'));
    await waitFor(() => expect(patches.at(-1)!.entries![0]).toEqual(full({ source: 'Acme', do_not_translate: true, case_sensitive: true })));

    // Search narrows the rows.
    fireEvent.change(screen.getByPlaceholderText('Search terms'), { target: { value: 'table' } });
    await waitFor(() => expect(within(table()).queryByLabelText('Term of Acme')).toBeNull());
    expect(within(table()).getByLabelText('Term of dashboard')).toBeTruthy();
    fireEvent.change(screen.getByPlaceholderText('Search terms'), { target: { value: '' } });

    // Delete a term.
    fireEvent.click(await within(table()).findByRole('button', { name: 'Delete Acme' }));
    await waitFor(() => expect(patches.at(-1)!.entries).toEqual([full({ source: 'dashboard', target: 'tablero' })]));
    await waitFor(() => expect(within(table()).queryByLabelText('Term of Acme')).toBeNull());
  });

  it('imports a CSV: lists the refused rows by line and shows the kept terms', async () => {
    store = [glossary()];
    importResponse = () => {
      store[0] = glossary({ entries: [full({ source: 'cart', target: 'carrito' })], updated_at: '2026-11-02T10:00:00Z' });
      return HttpResponse.json({ added: 1, updated: 0, errors: [{ line: 3, msg: 'The term is empty' }, { line: 5, msg: 'The translation of "checkout" is empty' }], glossary: store[0] });
    };
    useApi({ settings: settings(true) });
    renderApp({ path: '/spaces/sp-default/glossaries' });
    await screen.findByText(/No terms yet/);
    const input = screen.getByLabelText('CSV file to import') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [new File(['source,target\ncart,carrito\n'], 'terms.csv', { type: 'text/csv' })] } });
    const rows = await screen.findByRole('list', { name: 'Rows not imported' });
    expect(within(rows).getAllByRole('listitem').map((li) => li.textContent)).toEqual([
      'Line 3: The term is empty', 'Line 5: The translation of "checkout" is empty',
    ]);
    expect(screen.getByText(/1 term added, 0 updated\. 2 rows not imported/)).toBeTruthy();
    expect(within(table()).getByLabelText('Term of cart')).toBeTruthy();
  });

  it("shows the server's error for a file in the wrong encoding and keeps the terms", async () => {
    store = [glossary({ entries: [full({ source: 'one', target: 'uno' })] })];
    importResponse = () => HttpResponse.json({ detail: 'The file is not UTF-8 text. Save it as "CSV UTF-8 (comma delimited)" and import it again' }, { status: 415 });
    useApi({ settings: settings(true) });
    renderApp({ path: '/spaces/sp-default/glossaries' });
    await waitFor(() => expect(within(table()).getByLabelText('Term of one')).toBeTruthy());
    fireEvent.change(screen.getByLabelText('CSV file to import'), { target: { files: [new File([new Uint8Array([0xe9])], 'latin1.csv')] } });
    await screen.findByText('The file is not UTF-8 text. Save it as "CSV UTF-8 (comma delimited)" and import it again');
    expect(within(table()).getByLabelText('Term of one')).toBeTruthy();
  });

  it('deletes a dictionary after confirmation', async () => {
    store = [glossary({ id: 'g1', name: 'Old' })];
    useApi({ settings: settings(true) });
    renderApp({ path: '/spaces/sp-default/glossaries' });
    await screen.findByText(/No terms yet/);
    fireEvent.click(screen.getByRole('button', { name: 'Delete' }));
    const dialog = await screen.findByRole('dialog');
    fireEvent.click(within(dialog).getByRole('button', { name: 'Delete dictionary' }));
    await screen.findByRole('button', { name: 'Create a dictionary' });
    expect(store).toEqual([]);
  });

  it('explains the plan instead of calling the API when the Dictionary is not in the plan', async () => {
    let listed = 0;
    server.use(http.get('*/api/glossary', () => {
      listed++;
      return HttpResponse.json([]);
    }));
    useApi({ settings: settings(false) });
    renderApp({ path: '/spaces/sp-default/glossaries' });
    await screen.findByText('The Dictionary is part of the Business plan');
    expect(screen.getByRole('button', { name: 'Upgrade' })).toBeTruthy();
    expect(listed).toBe(0);
  });
});
