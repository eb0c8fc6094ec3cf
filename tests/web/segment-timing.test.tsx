// A segment's timing in the editor (issue 29): the fit bar's level and words (green within 0.9-1.1x, amber to
// 1.25x, red beyond or cut; a text alternative with the speed and drift, not colour only), and on an amber or red
// segment "Fix timing": Shorten, Let it borrow the pause, Keep the original audio here (and undo), each calling
// its API and handing the saved segment back, or showing why it could not.
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import type { Segment } from '../../contract/schemas/project';
import { TimingBar } from '../../src/features/editor/components/TimingBar';
import { TimingSummary } from '../../src/features/editor/components/TimingSummary';
import { SegmentRow } from '../../src/features/editor/components/SegmentRow';
import { segmentFit } from '../../src/features/editor/lib/timing';
import { appHandlers, renderRoute, segment, server, SPACE } from './projects-harness';

describe('segment fit levels', () => {
  it.each([
    [{ speed_factor: 1, overflow: 0 }, 'good', 'Fits 1.00×'],
    [{ speed_factor: 0.9, overflow: 0 }, 'good', 'Fits 0.90×'],
    [{ speed_factor: 1.1, overflow: 0 }, 'good', 'Fits 1.10×'],
    [{ speed_factor: 1.18, overflow: 0 }, 'tight', 'Fast 1.18×'],
    [{ speed_factor: 1.25, overflow: 0 }, 'tight', 'Fast 1.25×'],
    [{ speed_factor: 1.3, overflow: 0 }, 'bad', 'Too fast 1.30×'],
    [{ speed_factor: 1.05, overflow: 0.4 }, 'bad', 'Cut 1.05×'],
    [{ speed_factor: 0.8, overflow: 0 }, 'tight', 'Slow 0.80×'],
    [{ speed_factor: null, overflow: null }, 'unknown', 'Not dubbed yet'],
    [{ speed_factor: 1.6, overflow: 0.5, keep_original: true }, 'kept', 'Original audio'],
  ] as const)('%o is %s (%s)', (s, level, label) => {
    const f = segmentFit(s);
    expect(f.level).toBe(level);
    expect(f.label).toBe(label);
    expect(f.fixable).toBe(level === 'tight' || level === 'bad');
  });

  it('describes the speed, the cut and the drift in words', () => {
    expect(segmentFit({ speed_factor: 1.42, overflow: 0.35 }, 0.21).description).toBe('Timing: voice cut by 0.35 s, speed 1.42 times natural, starts 0.21 s late');
    expect(segmentFit({ speed_factor: 1.2, overflow: 0 }, -0.1).description).toBe('Timing: spoken faster than natural, speed 1.20 times natural, starts 0.10 s early');
  });
});

const PID = 'p1';

function setup(seg: Segment, o: { dirty?: boolean; readOnly?: boolean; answer?: (path: string, body: unknown) => Response } = {}) {
  const calls: Array<{ path: string; body: unknown }> = [];
  const reply = async ({ request }: { request: Request }) => {
    const path = new URL(request.url).pathname;
    const text = await request.text();
    const body = text ? JSON.parse(text) : null;
    calls.push({ path, body });
    if (o.answer) return o.answer(path, body);
    if (path.endsWith('/shorten')) {
      return HttpResponse.json({ segment: { ...seg, dst: { lang: 'es', text: 'Más corto.' }, status: 'updated' }, method: 'offline', budget_chars: 24, before_chars: 41, after_chars: 10 });
    }
    if (path.endsWith('/borrow_pause')) return HttpResponse.json({ segment: { ...seg, end: seg.end + 0.8, speed_factor: 1.02, status: 'updated' }, borrowed_sec: 0.8 });
    return HttpResponse.json({ segment: { ...seg, keep_original: (body as { keep: boolean }).keep, status: 'updated' } });
  };
  server.use(
    ...appHandlers(),
    http.post('*/api/project/p1/transcript/:seg/shorten', reply),
    http.post('*/api/project/p1/transcript/:seg/borrow_pause', reply),
    http.post('*/api/project/p1/transcript/:seg/keep_original', reply),
  );
  const onSegment = vi.fn<(s: Segment) => void>();
  const r = renderRoute(
    '/spaces/:spaceId',
    `/spaces/${SPACE}`,
    <TimingBar segment={seg} n={4} projectId={PID} driftSec={0.12} readOnly={!!o.readOnly} dirty={!!o.dirty} onSegment={onSegment} />,
  );
  return { ...r, calls, onSegment };
}

const fast = segment(3, { speed_factor: 1.32, overflow: 0 });

async function pick(name: string) {
  await userEvent.click(screen.getByRole('button', { name: 'Fix the timing of segment 4' }));
  await userEvent.click(within(screen.getByRole('menu', { name: 'Fix the timing of segment 4' })).getByRole('menuitem', { name }));
}

describe('timing bar on a row', () => {
  it('shows the level as a bar and words, with a text alternative (not colour only)', () => {
    const { container } = setup(fast);
    expect(container.querySelector('.ed-fit')!.getAttribute('data-fit')).toBe('bad');
    const chip = screen.getByRole('img', { name: 'Timing: spoken faster than natural, speed 1.32 times natural, starts 0.12 s late' });
    expect(chip.textContent).toBe('Too fast 1.32×');
    expect((container.querySelector('.ed-fit-fill') as HTMLElement).style.width).toBe('76%');
  });

  it('a green segment offers no fix; a kept one says so and offers to dub it again', async () => {
    setup(segment(3, { speed_factor: 1.02, overflow: 0 }));
    expect(screen.getByRole('img', { name: /fits its slot/ }).textContent).toBe('Fits 1.02×');
    expect(screen.queryByRole('button', { name: /Fix the timing/ })).toBeNull();
  });

  it('Shorten calls the shorten API (empty body), hands back the saved segment and says what changed', async () => {
    const { calls, onSegment } = setup(fast);
    await pick('Shorten');
    await waitFor(() => expect(onSegment).toHaveBeenCalledTimes(1));
    expect(calls).toEqual([{ path: `/api/project/p1/transcript/${fast.id}/shorten`, body: {} }]);
    expect(onSegment.mock.calls[0]![0]).toMatchObject({ id: fast.id, dst: { text: 'Más corto.' }, status: 'updated' });
    expect((await screen.findByRole('status')).textContent).toBe('Shortened offline: 41 → 10 characters (fits in 24)');
  });

  it('a refused shorten shows the server\'s reason and changes nothing', async () => {
    const { onSegment } = setup(fast, { answer: () => HttpResponse.json({ message: 'The line cannot be shortened any more' }, { status: 409 }) });
    await pick('Shorten');
    expect((await screen.findByRole('alert')).textContent).toBe('The line cannot be shortened any more');
    expect(onSegment).not.toHaveBeenCalled();
  });

  it('Let it borrow the pause calls borrow_pause; 409 shows why', async () => {
    const { calls, onSegment } = setup(fast);
    await pick('Let it borrow the pause');
    await waitFor(() => expect(onSegment).toHaveBeenCalledTimes(1));
    expect(calls[0]).toEqual({ path: `/api/project/p1/transcript/${fast.id}/borrow_pause`, body: null });
    expect(onSegment.mock.calls[0]![0]).toMatchObject({ end: fast.end + 0.8 });
    expect((await screen.findByRole('status')).textContent).toBe('Borrowed 0.80 s of the pause');
  });

  it('borrow refused (no pause) shows the server\'s detail', async () => {
    setup(fast, { answer: () => HttpResponse.json({ detail: 'The next segment starts right after this one: there is no pause to borrow' }, { status: 409 }) });
    await pick('Let it borrow the pause');
    expect((await screen.findByRole('alert')).textContent).toBe('The next segment starts right after this one: there is no pause to borrow');
  });

  it('Keep the original audio here sends keep true; a kept segment undoes with keep false', async () => {
    const first = setup(fast);
    await pick('Keep the original audio here');
    await waitFor(() => expect(first.onSegment).toHaveBeenCalledTimes(1));
    expect(first.calls[0]).toEqual({ path: `/api/project/p1/transcript/${fast.id}/keep_original`, body: { keep: true } });
    expect(first.onSegment.mock.calls[0]![0].keep_original).toBe(true);
    first.unmount();

    const kept = setup({ ...fast, keep_original: true });
    expect(screen.getByRole('img', { name: 'Original audio kept here: this segment is not dubbed' }).textContent).toBe('Original audio');
    expect(screen.queryByRole('button', { name: /Fix the timing/ })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Dub segment 4 again' }));
    await waitFor(() => expect(kept.onSegment).toHaveBeenCalledTimes(1));
    expect(kept.calls[0]).toEqual({ path: `/api/project/p1/transcript/${fast.id}/keep_original`, body: { keep: false } });
  });

  it('unsaved edits block the fixes (save first); read-only shows the bar only', () => {
    setup(fast, { dirty: true });
    const b = screen.getByRole('button', { name: 'Fix the timing of segment 4' }) as HTMLButtonElement;
    expect(b.disabled).toBe(true);
    expect(b.title).toBe('Save your changes first');
  });

  it('read-only: the bar without actions', () => {
    setup(fast, { readOnly: true });
    expect(screen.getByRole('img', { name: /speed 1.32/ })).toBeTruthy();
    expect(screen.queryByRole('button', { name: /Fix the timing/ })).toBeNull();
  });
});

describe('timing in the segment row, the timeline and the summary', () => {
  const noop = () => {};
  it('the row carries the bar and marks a kept segment', () => {
    server.use(...appHandlers());
    const { container } = renderRoute(
      '/spaces/:spaceId',
      `/spaces/${SPACE}`,
      <SegmentRow
        segment={segment(1, { speed_factor: 1.2, overflow: 0, keep_original: true })}
        index={0} selected={false} active={false} dirty={false} speakers={[{ id: 'S1', name: 'Speaker 1' }]} durationSec={20}
        canMergeNext={false} readOnly={false} onSelect={noop} onChange={noop} onInvalid={noop} onPlay={noop} onSplit={noop}
        onMergeNext={noop} onDelete={noop} onMove={noop} projectId={PID} driftSec={null} onServerSegment={noop}
      />,
    );
    expect(container.querySelector('.ed-row')!.getAttribute('data-kept')).toBe('true');
    expect(screen.getByRole('img', { name: /Original audio kept/ })).toBeTruthy();
  });

  it('counts the levels and shows the dub\'s largest drift', () => {
    server.use(...appHandlers());
    renderRoute(
      '/spaces/:spaceId',
      `/spaces/${SPACE}`,
      <TimingSummary
        segments={[
          { speed_factor: 1, overflow: 0 }, { speed_factor: 1.05, overflow: 0 }, { speed_factor: 1.2, overflow: 0 },
          { speed_factor: 1.1, overflow: 0.5 }, { speed_factor: null, overflow: null, keep_original: true }, { speed_factor: null, overflow: null },
        ]}
        timing={{ drift: new Map(), maxDriftSec: 0.234, stale: true }}
      />,
    );
    const g = screen.getByRole('group', { name: 'Timing of the dub' });
    expect(g.textContent).toBe('Timing:2 fit1 fast1 too fast or cut1 original audio1 not dubbed yetLargest drift 0.23 s (previous dub)');
  });
});
