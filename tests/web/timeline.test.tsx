// The timeline component (issue 15): lanes and virtualised blocks, the peaks it asks for, dragging an edge (free
// with Alt, snapped otherwise, held by the same-speaker rule), keyboard nudges, zoom, following the playhead; and in
// the editor: a drag changes the list's time field and saves through the list's segment update call, and an edit
// of the list's time field moves the block.
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { autosaveTiming } from '../../src/features/editor/components/EditorView';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { createRef } from 'react';
import { describe, expect, it, vi, beforeEach, afterEach } from 'vitest';
import type { Segment } from '../../contract/schemas/project';
import type { Settings } from '../../contract/schemas/settings';
import { ProjectEditor } from '../../src/features/editor/components/EditorPage';
import { findAnchor, TOUR_STEPS } from '../../src/features/onboarding/steps';
import { PeaksCache, type PeaksRequest } from '../../src/features/editor/timeline/peaks';
import { MAX_DOM_BLOCKS, Timeline, type TimelineHandle, type TimelineProps } from '../../src/features/editor/timeline/Timeline';
import { appHandlers, project, renderRoute, SETTINGS, segment, server, SPACE } from './projects-harness';

const S = (id: string, start: number, end: number, speaker: string, text = id): Segment => ({
  id, start, end, speaker, src: { lang: 'en', text }, dst: { lang: 'es', text }, status: 'done',
});

function fakeCache() {
  const load = vi.fn(async (r: PeaksRequest) => {
    const n = r.chunk === 'all' ? 300 : 8192;
    const data = new Int8Array(n * 2);
    for (let i = 0; i < n; i++) {
      data[i * 2] = -40;
      data[i * 2 + 1] = 40;
    }
    return { from: r.chunk === 'all' ? 0 : r.chunk * 8192, data, total: 300 };
  });
  return { cache: new PeaksCache(load), load };
}

function renderTimeline(over: Partial<TimelineProps> = {}) {
  const onChange = vi.fn();
  const onSelect = vi.fn();
  const onSeek = vi.fn();
  const { cache, load } = fakeCache();
  const ref = createRef<TimelineHandle>();
  const props: TimelineProps = {
    projectId: 'p1', durationSec: 60,
    segments: [S('a', 1, 3, 'S1'), S('b', 4, 6, 'S2'), S('c', 8, 10, 'S1'), S('far', 50, 52, 'S1')],
    speakers: [{ id: 'S1', name: 'Narrator' }, { id: 'S2', name: 'Guest' }],
    selectedId: null, dirty: new Set(), readOnly: false, sourceReady: true, dubVersion: null,
    collapsed: false, onCollapsedChange: () => {}, onSelect, onSeek, onChange, cache, ...over,
  };
  const utils = render(<Timeline ref={ref} {...props} />);
  return { ...utils, onChange, onSelect, onSeek, load, ref, props };
}

const block = (id: string) => document.querySelector(`[data-tl-segment="${id}"]`) as HTMLElement | null;
/** The initial zoom in tests: 900 px (no layout in happy-dom) for the first 30 s of a 60 s video. */
const PX = 30;

function drag(el: HTMLElement, fromX: number, dx: number, o: { altKey?: boolean } = {}) {
  fireEvent.pointerDown(el, { button: 0, clientX: fromX, pointerId: 1 });
  fireEvent.pointerMove(window, { clientX: fromX + dx / 2, pointerId: 1, ...o });
  fireEvent.pointerMove(window, { clientX: fromX + dx, pointerId: 1, ...o });
  fireEvent.pointerUp(window, { clientX: fromX + dx, pointerId: 1, ...o });
}

// Saving is driven by hand here: autosave waits longer than any of these tests.
beforeEach(() => {
  autosaveTiming.delayMs = 600_000;
});
afterEach(() => {
  autosaveTiming.delayMs = 1200;
});

describe('Timeline', () => {
  it('shows a lane per speaker with the blocks in view only, and asks for the source peaks of the window', async () => {
    const { load } = renderTimeline();
    // The audioTrackEditor_v1 tour step points at the timeline.
    expect(findAnchor(TOUR_STEPS.audioTrackEditor_v1)).toBe(screen.getByRole('region', { name: 'Timeline' }));
    expect(screen.getByText('Narrator')).toBeTruthy();
    expect(screen.getByText('Guest')).toBeTruthy();
    expect(block('a')!.getAttribute('aria-label')).toBe('Segment 1: 00:00:01,000 to 00:00:03,000');
    expect(block('b')!.closest('[data-speaker]')!.getAttribute('data-speaker')).toBe('S2');
    expect(block('far')).toBeNull(); // 50 s is out of view
    await waitFor(() => expect(load).toHaveBeenCalled());
    const asked = load.mock.calls.map(([r]) => `${r.track}/${r.resolution}/${r.chunk}`);
    expect(asked).toContain('source/5/all');
    expect(asked).toContain('source/50/0');
    expect(asked.some((a) => a.startsWith('dub'))).toBe(false);
    expect(screen.getByText('The dub waveform appears once the video is generated')).toBeTruthy();
  });

  it('asks for the dub peaks once there is a dub', async () => {
    const { load } = renderTimeline({ dubVersion: 'gen-3' });
    await waitFor(() => expect(load.mock.calls.some(([r]) => r.track === 'dub' && r.version === 'gen-3')).toBe(true));
    expect(screen.queryByText('The dub waveform appears once the video is generated')).toBeNull();
  });

  it('dragging the end edge with Alt moves it freely; the change is handed over on release', () => {
    const { onChange, onSelect } = renderTimeline();
    drag(block('a')!, 3 * PX - 2, 30, { altKey: true });
    expect(onSelect).toHaveBeenCalledWith('a');
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith('a', { start: 1, end: 4 });
  });

  it('snaps to the edge of another speaker’s segment, and shows the times while dragging', () => {
    const { onChange } = renderTimeline();
    const el = block('c')!;
    fireEvent.pointerDown(el, { button: 0, clientX: 8 * PX + 1, pointerId: 1 });
    // 8 s -> 6.1 s by the pointer: within 8 px (0.27 s) of the end of b (6 s).
    fireEvent.pointerMove(window, { clientX: 8 * PX + 1 - 57, pointerId: 1 });
    expect(screen.getByTestId('timeline-readout').textContent).toBe('00:00:06,000 – 00:00:10,000 · snapped');
    expect(block('c')!.getAttribute('aria-label')).toBe('Segment 3: 00:00:06,000 to 00:00:10,000');
    fireEvent.pointerUp(window, { pointerId: 1 });
    expect(onChange).toHaveBeenCalledWith('c', { start: 6, end: 10 });
  });

  it('holds a block out of the next segment of the same speaker, not of another speaker', () => {
    const { onChange } = renderTimeline();
    // a (S1, 1-3) moved right by 10 s: stopped by c (S1, 8-10), passing over b (S2).
    drag(block('a')!, 2 * PX, 10 * PX, { altKey: true });
    expect(onChange).toHaveBeenCalledWith('a', { start: 6, end: 8 });
  });

  it('does nothing on a plain click or when read-only, and Escape cancels a drag', () => {
    const { onChange, onSelect, unmount } = renderTimeline();
    fireEvent.pointerDown(block('a')!, { button: 0, clientX: 2 * PX, pointerId: 1 });
    fireEvent.pointerUp(window, { clientX: 2 * PX, pointerId: 1 });
    expect(onSelect).toHaveBeenCalledWith('a');
    fireEvent.pointerDown(block('a')!, { button: 0, clientX: 2 * PX, pointerId: 1 });
    fireEvent.pointerMove(window, { clientX: 2 * PX + 40, pointerId: 1 });
    fireEvent.keyDown(window, { key: 'Escape' });
    fireEvent.pointerUp(window, { clientX: 2 * PX + 40, pointerId: 1 });
    expect(onChange).not.toHaveBeenCalled();
    unmount();
    const ro = renderTimeline({ readOnly: true });
    drag(block('a')!, 2 * PX, 40, { altKey: true });
    expect(ro.onSelect).toHaveBeenCalledWith('a');
    expect(ro.onChange).not.toHaveBeenCalled();
  });

  it('nudges the selected block with the arrow keys (Shift: 100 ms, Alt: the end only)', () => {
    const { onChange } = renderTimeline({ selectedId: 'a' });
    fireEvent.keyDown(block('a')!, { key: 'ArrowRight' });
    expect(onChange).toHaveBeenLastCalledWith('a', { start: 1.01, end: 3.01 });
    fireEvent.keyDown(block('a')!, { key: 'ArrowLeft', shiftKey: true });
    expect(onChange).toHaveBeenLastCalledWith('a', { start: 0.9, end: 2.9 });
    fireEvent.keyDown(block('a')!, { key: 'ArrowRight', altKey: true });
    expect(onChange).toHaveBeenLastCalledWith('a', { start: 1, end: 3.01 });
  });

  it('zooms with the buttons and shows the whole video', async () => {
    renderTimeline();
    const width = () => parseFloat(block('c')!.style.width);
    expect(width()).toBeCloseTo(2 * PX, 5);
    await userEvent.click(screen.getByRole('button', { name: 'Zoom in' }));
    expect(width()).toBeCloseTo(2 * PX * 1.5, 5);
    await userEvent.click(screen.getByRole('button', { name: 'Whole video' }));
    expect(width()).toBeCloseTo(2 * 15, 5);
    expect(block('far')).not.toBeNull();
  });

  it('hides and shows (the editor keeps the state)', async () => {
    const onCollapsedChange = vi.fn();
    const { rerender, props } = renderTimeline({ onCollapsedChange });
    await userEvent.click(screen.getByRole('button', { name: 'Hide timeline' }));
    expect(onCollapsedChange).toHaveBeenCalledWith(true);
    rerender(<Timeline {...props} collapsed />);
    expect(block('a')).toBeNull();
    expect(screen.getByRole('button', { name: 'Show timeline' }).getAttribute('aria-expanded')).toBe('false');
    rerender(<Timeline {...props} collapsed={false} />);
    expect(block('a')).not.toBeNull();
  });

  it('follows the playhead to another page, unless following is off', async () => {
    const { ref } = renderTimeline();
    expect(block('far')).toBeNull();
    act(() => ref.current!.setPlayhead(51, true));
    expect(block('far')).not.toBeNull();
    act(() => ref.current!.setPlayhead(2, false));
    expect(block('a')).not.toBeNull();
    await userEvent.click(screen.getByLabelText('Follow playhead'));
    act(() => ref.current!.setPlayhead(51, true));
    expect(block('far')).toBeNull();
  });

  it('draws instead of mounting when too many blocks are in view (10,000 segments over 3 hours)', async () => {
    const segs = Array.from({ length: 10_000 }, (_, i) => S(`s${i}`, i * 1.08, i * 1.08 + 0.9, i % 2 ? 'S2' : 'S1'));
    const { onSeek } = renderTimeline({ segments: segs, durationSec: 3 * 3600 });
    const mounted = document.querySelectorAll('[data-tl-segment]').length;
    expect(mounted).toBeGreaterThan(10);
    expect(mounted).toBeLessThan(MAX_DOM_BLOCKS);
    await userEvent.click(screen.getByRole('button', { name: 'Whole video' }));
    expect(document.querySelectorAll('[data-tl-segment]').length).toBe(0);
    expect(screen.getByText('10,000 segments in view: click or zoom in to drag them')).toBeTruthy();
    // A click on the ruler moves the playhead there.
    fireEvent.pointerDown(screen.getByLabelText('Time ruler: click to move the playhead'), { clientX: 450 });
    expect(onSeek).toHaveBeenCalledTimes(1);
    expect(onSeek.mock.calls[0]![0]).toBeCloseTo(5400, 0);
  });
});

describe('Timeline in the editor', { timeout: 60_000 }, () => {
  const settings: Settings = {
    ...SETTINGS,
    scope_settings: {
      ...SETTINGS.scope_settings,
      available_features: { audio_track_editor: { enabled: true, visible: true, metadata: { desktop: true } } } as Settings['scope_settings']['available_features'],
    },
  };

  it('a drag changes the list time field and saves through the segment update call; a list edit moves the block', async () => {
    const segs = [segment(0, { start: 1, end: 3 }), segment(1, { start: 4, end: 6 })];
    const patches: Array<{ segments: Segment[] }> = [];
    server.use(
      ...appHandlers({ settings }),
      http.get('*/api/project/:id', () => HttpResponse.json(project({ duration: 60 }))),
      http.get('*/api/project/:id/transcript', () => HttpResponse.json({ segments: segs })),
      http.get('*/api/project/:id/voice_pool', () => HttpResponse.json({ voices: [] })),
      http.get('*/api/project/:id/peaks', ({ request }) => {
        const u = new URL(request.url);
        expect(u.searchParams.get('track')).toBe('source');
        return new HttpResponse(new Int8Array([-10, 10, -60, 60]).buffer, {
          headers: { 'content-type': 'application/octet-stream', 'x-peaks-from': u.searchParams.get('from') ?? '0', 'x-peaks-total': '2' },
        });
      }),
      http.patch('*/api/project/:id/transcript', async ({ request }) => {
        const body = (await request.json()) as { segments: Segment[] };
        patches.push(body);
        return HttpResponse.json({ segments: body.segments.map((s) => ({ ...s, status: 'updated' })) });
      }),
    );
    renderRoute('/spaces/:spaceId/project/:projectId', `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
    const endField = (await screen.findByLabelText('End of segment 1', {}, { timeout: 20_000 })) as HTMLInputElement;
    const first = await waitFor(() => {
      const el = block(segment(0).id);
      if (!el) throw new Error('no block yet');
      return el;
    });
    drag(first, 3 * PX - 2, 15, { altKey: true });
    await waitFor(() => expect(endField.value).toBe('00:00:03,500'));
    expect(block(segment(0).id)!.getAttribute('data-dirty')).toBe('true');
    await userEvent.click(screen.getByRole('button', { name: 'Save changes (Ctrl+S)' }));
    await waitFor(() => expect(patches).toHaveLength(1));
    expect(patches[0]!.segments).toHaveLength(1);
    expect(patches[0]!.segments[0]).toMatchObject({ id: segment(0).id, start: 1, end: 3.5 });

    // The list's time field moves the block.
    const startField = screen.getByLabelText('Start of segment 2') as HTMLInputElement;
    await userEvent.clear(startField);
    await userEvent.type(startField, '00:00:04,250{Enter}');
    await waitFor(() => expect(block(segment(1).id)!.getAttribute('aria-label')).toBe('Segment 2: 00:00:04,250 to 00:00:06,000'));
  });
});

describe('Timeline: the dub\'s fit on each block (issue 29)', () => {
  it('marks each block with its fit level and says it in words', () => {
    renderTimeline({
      segments: [
        { ...S('a', 1, 3, 'S1'), speed_factor: 1.02, overflow: 0 },
        { ...S('b', 4, 6, 'S2'), speed_factor: 1.4, overflow: 0.3 },
        { ...S('c', 8, 10, 'S1'), keep_original: true },
      ],
    });
    expect(block('a')!.getAttribute('data-fit')).toBe('good');
    expect(block('a')!.getAttribute('aria-label')).toBe('Segment 1: 00:00:01,000 to 00:00:03,000, Fits 1.02×');
    expect(block('b')!.getAttribute('data-fit')).toBe('bad');
    expect(block('b')!.getAttribute('aria-label')).toBe('Segment 2: 00:00:04,000 to 00:00:06,000, Cut 1.40×');
    expect(block('b')!.title).toContain('voice cut by 0.30 s');
    expect(block('c')!.getAttribute('data-fit')).toBe('kept');
    expect(block('c')!.getAttribute('aria-label')).toBe('Segment 3: 00:00:08,000 to 00:00:10,000, Original audio');
  });
});
