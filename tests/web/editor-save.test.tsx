import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { autosaveTiming } from '../../src/features/editor/components/EditorView';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi, beforeEach } from 'vitest';
import { SEGMENT_SAVE_ERROR_MS } from '../../contract/constants';
import { TEXT } from '../../contract/errors';
import type { Project, Segment } from '../../contract/schemas/project';
import { ROW_HEIGHT } from '../../src/features/editor/components/SegmentRow';
import { patchSegments } from '../../src/features/editor/api';
import { TranscriptStore } from '../../src/features/editor/lib/store';
import { ProjectEditor } from '../../src/features/editor/components/EditorPage';
import { barrier } from '../fixtures/barrier';
import { waitWithFakeClock } from './helpers';
import { appHandlers, project, renderRoute, segment, server, SPACE } from './projects-harness';

const PATTERN = '/spaces/:spaceId/project/:projectId';

function editorHandlers(p: Project, segs: Segment[], patch?: (body: { segments: Segment[] }) => Response | Promise<Response>) {
  const patches: Segment[][] = [];
  let current = segs.map((s) => ({ ...s }));
  server.use(
    ...appHandlers(),
    http.get('*/api/project/:id', () => HttpResponse.json(p)),
    http.get('*/api/project/:id/transcript', () => HttpResponse.json({ segments: current })),
    http.get('*/api/project/:id/voice_pool', () => HttpResponse.json({ voices: [] })),
    http.patch('*/api/project/:id/transcript', async ({ request }) => {
      const body = (await request.json()) as { segments: Segment[] };
      patches.push(body.segments);
      if (patch) return patch(body);
      const saved = body.segments.map((s) => ({ ...s, status: 'updated' as const }));
      current = current.map((c) => saved.find((s) => s.id === c.id) ?? c);
      return HttpResponse.json({ segments: saved });
    }),
  );
  return { patches };
}

function row(i: number): HTMLElement {
  return document.querySelector(`[data-segment-id="${segment(i).id}"]`) as HTMLElement;
}

async function scrollToRow(i: number) {
  const list = screen.getByTestId('virtual-list');
  await act(async () => {
    list.scrollTop = i * ROW_HEIGHT;
    fireEvent.scroll(list);
    await new Promise((r) => requestAnimationFrame(() => r(null)));
  });
}

afterEach(() => {
  vi.useRealTimers();
});

// Saving is driven by hand here: autosave waits longer than any of these tests.
beforeEach(() => {
  autosaveTiming.delayMs = 600_000;
});
afterEach(() => {
  autosaveTiming.delayMs = 1200;
});

describe('editor: saving segments', { timeout: 60_000 }, () => {
  it('sends 51 changed segments as 2 parallel requests (50 + 1)', async () => {
    const segs = Array.from({ length: 60 }, (_, i) => segment(i));
    const { patches } = editorHandlers(project(), segs);
    renderRoute(PATTERN, `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
    await screen.findByLabelText('Translation of segment 1');

    for (let i = 0; i < 51; i++) {
      if (!row(i)) await scrollToRow(i);
      const ta = within(row(i)).getByLabelText(`Translation of segment ${i + 1}`);
      fireEvent.change(ta, { target: { value: `edited ${i}` } });
    }
    const save = screen.getByRole('button', { name: 'Save changes (Ctrl+S)' });
    expect(screen.getByTestId('save-state').textContent).toBe('Unsaved changes');
    await userEvent.click(save);
    await waitFor(() => expect(patches).toHaveLength(2));
    expect(patches.map((p) => p.length).sort((a, b) => b - a)).toEqual([50, 1]);
    const sent = patches.flat();
    expect(new Set(sent.map((s) => s.id)).size).toBe(51);
    expect(sent.find((s) => s.id === segment(7).id)?.dst.text).toBe('edited 7');
    await waitFor(() => expect(screen.getByTestId('save-state').textContent).toBe('Saved'));
    expect(screen.queryByRole('button', { name: 'Save changes (Ctrl+S)' })).toBeNull();
  });

  it('TranscriptStore.flush over the http client: chunks of 50 in parallel', async () => {
    let inFlight = 0;
    let peak = 0;
    const sizes: number[] = [];
    const allArrived = barrier(3);
    server.use(
      http.patch('*/api/project/p9/transcript', async ({ request }) => {
        const body = (await request.json()) as { segments: Segment[] };
        sizes.push(body.segments.length);
        inFlight++;
        peak = Math.max(peak, inFlight);
        await allArrived();
        inFlight--;
        return HttpResponse.json({ segments: body.segments });
      }),
    );
    const store = new TranscriptStore(Array.from({ length: 120 }, (_, i) => segment(i)));
    for (let i = 0; i < 101; i++) store.update(segment(i).id, { dstText: `x${i}` });
    const r = await store.flush((chunk) => patchSegments('p9', chunk));
    expect(r).toMatchObject({ saved: 101, failed: [] });
    expect(sizes.sort((a, b) => b - a)).toEqual([50, 50, 1]);
    expect(peak).toBe(3);
  });

  it('on failure shows the text for 6 s, flags the segment and restores the server copy', async () => {
    const segs = Array.from({ length: 5 }, (_, i) => segment(i));
    const { patches } = editorHandlers(project(), segs, () => HttpResponse.json({ detail: 'boom' }, { status: 500 }));
    renderRoute(PATTERN, `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
    const ta = (await screen.findByLabelText('Translation of segment 2')) as HTMLTextAreaElement;
    fireEvent.change(ta, { target: { value: 'my local edit' } });
    expect(within(row(1)).getByText('Unsaved')).toBeTruthy();

    // From here the clock only moves when the test moves it (no shouldAdvanceTime): the 6 s of the failure text are
    // counted from when it appears, however long the checks in between take on a loaded machine.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    fireEvent.click(screen.getByRole('button', { name: 'Save changes (Ctrl+S)' }));
    const banner = await waitWithFakeClock(() => screen.getByTestId('segment-save-error'));
    expect(banner.textContent).toContain(TEXT.segmentSaveFailed);
    expect(patches).toHaveLength(1);
    // flagged, local pending change dropped, server copy back
    expect(row(1).dataset.error).toBe('true');
    expect((within(row(1)).getByLabelText('Translation of segment 2') as HTMLTextAreaElement).value).toBe('translation 1');
    expect(within(row(1)).queryByText('Unsaved')).toBeNull();
    expect(within(row(1)).getByText(TEXT.segmentSaveFailed)).toBeTruthy();
    // Not hidden behind "Saved": the header says the edit was not saved.
    expect(screen.getByTestId('save-state').textContent).toBe('Not saved');

    act(() => void vi.advanceTimersByTime(SEGMENT_SAVE_ERROR_MS - 300));
    expect(screen.queryByTestId('segment-save-error')).not.toBeNull();
    act(() => void vi.advanceTimersByTime(600));
    expect(screen.queryByTestId('segment-save-error')).toBeNull();
    // The flag stays on the segment until it is edited again.
    expect(row(1).dataset.error).toBe('true');
    fireEvent.change(within(row(1)).getByLabelText('Translation of segment 2'), { target: { value: 'again' } });
    expect(row(1).dataset.error).toBe('false');
  });

  it('Ctrl+S saves', async () => {
    const { patches } = editorHandlers(project(), [segment(0), segment(1)]);
    renderRoute(PATTERN, `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
    const ta = await screen.findByLabelText('Translation of segment 1');
    fireEvent.change(ta, { target: { value: 'hola' } });
    fireEvent.keyDown(window, { key: 's', ctrlKey: true });
    await waitFor(() => expect(patches).toHaveLength(1));
    expect(patches[0]).toHaveLength(1);
    expect(patches[0][0].dst.text).toBe('hola');
  });
});
