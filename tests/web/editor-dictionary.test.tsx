// The editor and the Dictionary: a segment whose translation lacks a dictionary term is marked (and the mark
// follows the text as it is edited); the project's dictionary is chosen in the side panel (PATCH {id}/glossary).
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Project, Segment } from '../../contract/schemas/project';
import type { Settings } from '../../contract/schemas/settings';
import { ProjectEditor } from '../../src/features/editor/components/EditorPage';
import { appHandlers, project, renderRoute, segment, server, SETTINGS, SPACE } from './projects-harness';

const PATTERN = '/spaces/:spaceId/project/:projectId';
const withDictionary: Settings = {
  ...SETTINGS,
  scope_settings: {
    ...SETTINGS.scope_settings,
    available_features: { glossary: { enabled: true, visible: true, metadata: { desktop: true } } } as Settings['scope_settings']['available_features'],
  },
};

function handlers(p: () => Project, segs: Segment[], settings: Settings = SETTINGS) {
  const patches: string[] = [];
  server.use(
    ...appHandlers({ settings }),
    http.get('*/api/project/:id', () => HttpResponse.json(p())),
    http.get('*/api/project/:id/transcript', () => HttpResponse.json({ segments: segs })),
    http.get('*/api/project/:id/voice_pool', () => HttpResponse.json({ voices: [] })),
    http.get('*/api/glossary', ({ request }) => {
      const q = new URL(request.url).searchParams;
      expect([q.get('source_lang'), q.get('target_lang')]).toEqual(['en', 'es']);
      return HttpResponse.json([{ id: 'g1', glossary_id: 'g1', name: 'Brand', entries_count: 3 }]);
    }),
  );
  return patches;
}
const open = () => renderRoute(PATTERN, `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
const row = (i: number) => document.querySelector(`[data-segment-id="${segment(i).id}"]`) as HTMLElement;

describe('the editor with a dictionary', () => {
  it('marks a segment whose translation lacks a term, and clears the mark when the term is typed', async () => {
    const terms = { expected: [{ source: 'cart', target: 'carrito' }], missing: [{ source: 'cart', target: 'carrito' }] };
    handlers(() => project({ glossary_id: 'g1' }), [
      segment(0, { src: { lang: 'en', text: 'The cart' }, dst: { lang: 'es', text: 'La cesta' }, terms }),
      segment(1, { src: { lang: 'en', text: 'Hello' }, dst: { lang: 'es', text: 'Hola' }, terms: { expected: [], missing: [] } }),
    ]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    await waitFor(() => expect(within(row(0)).getByText('Missing term: carrito')).toBeTruthy());
    expect(within(row(1)).queryByText(/Missing term/)).toBeNull();
    fireEvent.change(screen.getByLabelText('Translation of segment 1'), { target: { value: 'El carrito' } });
    await waitFor(() => expect(within(row(0)).queryByText(/Missing term/)).toBeNull());
  });

  it('says when the translation engine could not apply a term (the server recorded it), as against a term edited out', async () => {
    const pair = { source: 'engine room', target: 'sala de máquinas' };
    const other = { source: 'cart', target: 'carrito' };
    handlers(() => project({ glossary_id: 'g1' }), [
      segment(0, { src: { lang: 'en', text: 'The engine room' }, dst: { lang: 'es', text: 'El cuarto de motores' }, terms: { expected: [pair], missing: [pair], unapplied: [pair] } }),
      segment(1, { src: { lang: 'en', text: 'The cart' }, dst: { lang: 'es', text: 'La cesta' }, terms: { expected: [other], missing: [other] } }),
    ]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    const tag = await waitFor(() => within(row(0)).getByText('Term not applied by the translation: sala de máquinas'));
    expect(tag.getAttribute('title')).toMatch(/could not apply it here, add it by hand/);
    expect(within(row(1)).getByText('Missing term: carrito')).toBeTruthy();
  });

  it('chooses the project dictionary in the side panel', async () => {
    let current: Project = project();
    const seen: string[] = [];
    handlers(() => current, [segment(0)], withDictionary);
    server.use(
      http.patch('*/api/project/:id/glossary', ({ request }) => {
        const id = new URL(request.url).searchParams.get('glossary_id')!;
        seen.push(id);
        current = project({ glossary_id: id === 'null' ? null : id });
        return HttpResponse.json(current);
      }),
    );
    open();
    const select = (await screen.findByLabelText('Dictionary')) as HTMLSelectElement;
    await waitFor(() => expect(within(select).getByText('Brand (3 terms)')).toBeTruthy());
    fireEvent.change(select, { target: { value: 'g1' } });
    await waitFor(() => expect(seen).toEqual(['g1']));
    await waitFor(() => expect((screen.getByLabelText('Dictionary') as HTMLSelectElement).value).toBe('g1'));
    fireEvent.change(screen.getByLabelText('Dictionary'), { target: { value: '' } });
    await waitFor(() => expect(seen).toEqual(['g1', 'null']));
  });

  it('has no dictionary panel when the plan has no Dictionary', async () => {
    handlers(() => project(), [segment(0)]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    expect(screen.queryByLabelText('Dictionary')).toBeNull();
  });
});
