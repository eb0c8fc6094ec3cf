import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { autosaveTiming } from '../../src/features/editor/components/EditorView';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, beforeEach, afterEach } from 'vitest';
import { Link } from 'wouter';
import { TEXT } from '../../contract/errors';
import type { Project, Segment } from '../../contract/schemas/project';
import { FEEDBACK_TITLE } from '../../src/ui/feedback-modal';
import { TIME_FORMAT_ERROR } from '../../src/features/editor/lib/time';
import { ProjectEditor } from '../../src/features/editor/components/EditorPage';
import { appHandlers, project, renderRoute, segment, server, SPACE } from './projects-harness';

const PATTERN = '/spaces/:spaceId/project/:projectId';

function handlers(p: Project | (() => Project), segs: Segment[], extra: Parameters<typeof server.use> = []) {
  const get = typeof p === 'function' ? p : () => p;
  server.use(
    ...extra,
    ...appHandlers(),
    http.get('*/api/project/:id', () => HttpResponse.json(get())),
    http.get('*/api/project/:id/transcript', () => HttpResponse.json({ segments: segs })),
    http.get('*/api/project/:id/voice_pool', () =>
      HttpResponse.json({ voices: [{ id: 'v1', name: 'Lucia', gender: 'female', language: 'es', sample_url: null }] }),
    ),
  );
}
const open = () => renderRoute(PATTERN, `/spaces/${SPACE}/project/p1`, <ProjectEditor />);
/** Polaris buttons are disabled through aria-disabled. */
const disabled = (el: HTMLElement) => el.getAttribute('aria-disabled') === 'true' || (el as HTMLButtonElement).disabled;
const row = (i: number) => document.querySelector(`[data-segment-id="${segment(i).id}"]`) as HTMLElement;

// Saving is driven by hand here: autosave waits longer than any of these tests.
beforeEach(() => {
  autosaveTiming.delayMs = 600_000;
});
afterEach(() => {
  autosaveTiming.delayMs = 1200;
});

describe('editor', { timeout: 60_000 }, () => {
  it('renders only the visible rows of 1,000 segments', async () => {
    handlers(project({ duration: 2100 }), Array.from({ length: 1000 }, (_, i) => segment(i)));
    open();
    await screen.findByLabelText('Translation of segment 1', {}, { timeout: 20_000 });
    expect(screen.getByText('1000 segments')).toBeTruthy();
    const rows = document.querySelectorAll('[data-segment-id]');
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.length).toBeLessThan(30);
    const list = screen.getByRole('list', { name: 'Segments' });
    expect(list.style.height).toBe(`${1000 * 156}px`);

    // Scrolling far away renders the rows there and keeps the focused row mounted (focus is not lost).
    const first = screen.getByLabelText('Translation of segment 1');
    first.focus();
    const scroller = screen.getByTestId('virtual-list');
    await act(async () => {
      scroller.scrollTop = 500 * 156;
      fireEvent.scroll(scroller);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
    });
    expect(await screen.findByLabelText('Translation of segment 501')).toBeTruthy();
    expect(document.activeElement).toBe(screen.getByLabelText('Translation of segment 1'));
    expect(screen.queryByLabelText('Translation of segment 2')).toBeNull();
    expect(document.querySelectorAll('[data-segment-id]').length).toBeLessThan(30);
  });

  it('validates start/end as hh:mm:ss,mmm and shows overlaps of the same speaker inline', async () => {
    const patches: unknown[] = [];
    handlers(project(), [segment(0), segment(1), segment(2, { speaker: 'S2' })], [
      http.patch('*/api/project/:id/transcript', async ({ request }) => {
        patches.push(await request.json());
        return HttpResponse.json({ segments: [] });
      }),
    ]);
    open();
    const start2 = (await screen.findByLabelText('Start of segment 2')) as HTMLInputElement;
    expect(start2.value).toBe('00:00:02,000');

    await userEvent.clear(start2);
    await userEvent.type(start2, '2 seconds');
    await userEvent.tab();
    expect(within(row(1)).getByText(TIME_FORMAT_ERROR)).toBeTruthy();
    expect(start2.getAttribute('aria-invalid')).toBe('true');
    // An invalid time is an unsaved change.
    expect(disabled(screen.getByRole('button', { name: 'Save changes (Ctrl+S)' }))).toBe(false);

    await userEvent.clear(start2);
    await userEvent.type(start2, '00:00:01,000{Enter}');
    // segment 1 is 0-1.5 s, segment 2 now starts at 1 s: same speaker, overlap
    expect(await within(row(1)).findByText('Start overlaps the previous segment of this speaker')).toBeTruthy();
    expect(within(row(0)).getByText('End overlaps the next segment of this speaker')).toBeTruthy();
    expect(within(row(1)).getByText('Unsaved')).toBeTruthy();
    // Overlapping segments of one speaker are not sent (the server refuses them).
    await userEvent.click(screen.getByRole('button', { name: 'Save changes (Ctrl+S)' }));
    expect(await screen.findByText(/Segments of the same speaker overlap/)).toBeTruthy();
    expect(patches).toHaveLength(0);

    // Segment 3 (other speaker) overlapping is fine.
    const start3 = screen.getByLabelText('Start of segment 3') as HTMLInputElement;
    await userEvent.clear(start3);
    await userEvent.type(start3, '00:00:02,000{Enter}');
    expect(within(row(2)).queryByText(/overlaps/)).toBeNull();

    const end1 = screen.getByLabelText('End of segment 1') as HTMLInputElement;
    await userEvent.clear(end1);
    await userEvent.type(end1, '00:00:00,000{Enter}');
    expect(within(row(0)).getByText('End must be after start')).toBeTruthy();
  });

  it('asks before leaving with unsaved changes (spec discard texts)', async () => {
    handlers(project(), [segment(0)]);
    const { mem } = open();
    fireEvent.change(await screen.findByLabelText('Translation of segment 1'), { target: { value: 'changed' } });
    await userEvent.click(screen.getByRole('button', { name: 'Back to projects' }));
    expect(await screen.findByText(TEXT.discardTitle)).toBeTruthy();
    expect(screen.getByText(TEXT.discardSubtitle)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: TEXT.discardCancel }));
    expect(mem.history[mem.history.length - 1]).toBe(`/spaces/${SPACE}/project/p1`);
    await userEvent.click(screen.getByRole('button', { name: 'Back to projects' }));
    await userEvent.click(await screen.findByRole('button', { name: TEXT.discardConfirm }));
    expect(mem.history[mem.history.length - 1]).toBe(`/spaces/${SPACE}`);
  });

  it('asks before following an in-app link with unsaved changes', async () => {
    handlers(project(), [segment(0)]);
    const { mem } = renderRoute(
      PATTERN,
      `/spaces/${SPACE}/project/p1`,
      <>
        <Link href="/account">Account</Link>
        <ProjectEditor />
      </>,
    );
    fireEvent.change(await screen.findByLabelText('Translation of segment 1'), { target: { value: 'changed' } });
    await userEvent.click(screen.getByRole('link', { name: 'Account' }));
    expect(await screen.findByText(TEXT.discardTitle)).toBeTruthy();
    expect(mem.history[mem.history.length - 1]).toBe(`/spaces/${SPACE}/project/p1`);
    await userEvent.click(screen.getByRole('button', { name: TEXT.discardConfirm }));
    expect(mem.history[mem.history.length - 1]).toBe('/account');
  });

  it('leaves without asking when everything is saved', async () => {
    handlers(project(), [segment(0)]);
    const { mem } = open();
    await screen.findByLabelText('Translation of segment 1');
    await userEvent.click(screen.getByRole('button', { name: 'Back to projects' }));
    expect(screen.queryByText(TEXT.discardTitle)).toBeNull();
    expect(mem.history[mem.history.length - 1]).toBe(`/spaces/${SPACE}`);
  });

  it('Generate: disabled when nothing changed since the last video, enabled with changes', async () => {
    handlers(project({ status: 'merging_done', translated_video: '/v.mp4', changed_segments: 0 }), [segment(0)]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    const gen = screen.getByRole('button', { name: 'Generate video' });
    expect(disabled(gen)).toBe(true);
    expect(screen.getByText('Nothing changed since the last generation.')).toBeTruthy();
    fireEvent.change(screen.getByLabelText('Translation of segment 1'), { target: { value: 'nuevo' } });
    expect(disabled(screen.getByRole('button', { name: 'Generate video' }))).toBe(false);
    expect(screen.getByText('1 changed segment will be voiced again.')).toBeTruthy();
  });

  it('Generate saves first, then starts; shows progress; a 402 is reported', async () => {
    let status: Project['status'] = 'translation_done';
    const calls: string[] = [];
    handlers(() => project({ status, progress: status === 'voiceover_started' ? 65 : 100 }), [segment(0)], [
      http.patch('*/api/project/:id/transcript', async ({ request }) => {
        calls.push('patch');
        const b = (await request.json()) as { segments: Segment[] };
        return HttpResponse.json({ segments: b.segments });
      }),
      http.post('*/api/project/:id/generate', () => {
        calls.push('generate');
        if (calls.filter((c) => c === 'generate').length === 1) {
          return HttpResponse.json({ detail: 'You have 0 credits available.' }, { status: 402 });
        }
        status = 'voiceover_started';
        return HttpResponse.json(project({ status, progress: 65 }));
      }),
    ]);
    open();
    fireEvent.change(await screen.findByLabelText('Translation of segment 1'), { target: { value: 'nuevo' } });
    // Generate asks first, saying what it spends.
    await userEvent.click(screen.getByRole('button', { name: 'Generate video' }));
    const ask = await screen.findByRole('dialog', { name: 'Generate the dubbed video?' });
    expect(within(ask).getByText(/^This uses \d+ minutes?/)).toBeTruthy();
    await userEvent.click(within(ask).getByRole('button', { name: 'Generate' }));
    expect(await screen.findByText('You have 0 credits available.')).toBeTruthy();
    expect(calls).toEqual(['patch', 'generate']);
    await userEvent.click(screen.getByRole('button', { name: 'Generate video' }));
    await userEvent.click(within(await screen.findByRole('dialog', { name: 'Generate the dubbed video?' })).getByRole('button', { name: 'Generate' }));
    expect(await screen.findByText(/voicing the segments/)).toBeTruthy();
    expect(screen.getAllByText('65%').length).toBeGreaterThan(0);
    expect(calls).toEqual(['patch', 'generate', 'generate']);
    expect(disabled(screen.getByRole('button', { name: 'Generate video' }))).toBe(true);
    // Rows are read-only while generating.
    expect(screen.getByLabelText('Translation of segment 1')).toHaveProperty('readOnly', true);
  });

  it('feedback: submit only when changed, everything disabled while sending', async () => {
    let release!: () => void;
    const sent: unknown[] = [];
    handlers(project(), [segment(0)], [
      http.post('*/api/project/:id/feedback', async ({ request }) => {
        sent.push(await request.json());
        await new Promise<void>((r) => (release = r));
        return HttpResponse.json({ id: 'f1' });
      }),
    ]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    await userEvent.click(screen.getByRole('button', { name: 'Downloads and more' }));
    await userEvent.click(await screen.findByText('Report a problem'));
    expect(await screen.findByText(FEEDBACK_TITLE)).toBeTruthy();
    const submit = screen.getByRole('button', { name: 'Send feedback' });
    expect(disabled(submit)).toBe(true);
    await userEvent.click(screen.getByLabelText('Timing is off'));
    expect(disabled(screen.getByRole('button', { name: 'Send feedback' }))).toBe(false);
    await userEvent.click(screen.getByLabelText('Timing is off'));
    expect(disabled(screen.getByRole('button', { name: 'Send feedback' }))).toBe(true);
    await userEvent.type(screen.getByLabelText('Tell us more'), 'Too fast');
    await userEvent.click(screen.getByRole('button', { name: 'Send feedback' }));
    await waitFor(() => expect(sent).toHaveLength(1));
    expect(sent[0]).toEqual({ comment: 'Too fast', options: [] });
    expect(screen.getByLabelText('Tell us more')).toHaveProperty('disabled', true);
    expect(screen.getByLabelText('Timing is off')).toHaveProperty('disabled', true);
    expect(disabled(screen.getByRole('button', { name: 'Cancel' }))).toBe(true);
    await act(async () => release());
    await waitFor(() => expect(screen.queryByText(FEEDBACK_TITLE)).toBeNull());
  });

  it('shows live status and progress until the transcript is ready, then the editor', async () => {
    let status: Project['status'] = 'transcription_started';
    handlers(() => project({ status, progress: status === 'transcription_started' ? 10 : 100 }), [segment(0)]);
    open();
    expect(await screen.findByText('Transcribing video')).toBeTruthy();
    expect(screen.getAllByText('10%').length).toBeGreaterThan(0);
    status = 'translation_done';
    // The page polls every PROJECT_POLL_MS (2 s): wait for the state, with room for a loaded machine.
    expect(await screen.findByLabelText('Translation of segment 1', {}, { timeout: 20_000 })).toBeTruthy();
  });

  it('opens the editor when the live stream speaks before the project has arrived', async () => {
    // The stream's first event comes while GET /api/project/p1 is still in flight (a reload on a busy server).
    let eventSent!: () => void;
    const sent = new Promise<void>((r) => (eventSent = r));
    const enc = new TextEncoder();
    handlers(project({ status: 'translation_done' }), [segment(0)], [
      http.get('*/api/project/:id/events', () => {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode('event: ready\ndata: {}\n\n'));
            c.enqueue(enc.encode(`event: project\ndata: ${JSON.stringify({ id: 'p1', space_id: SPACE, status: 'translation_done', progress: 100 })}\n\n`));
            setTimeout(eventSent, 50);
          },
        });
        return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
      }),
      http.get('*/api/project/:id', async () => {
        await sent;
        await new Promise((r) => setTimeout(r, 50));
        return HttpResponse.json(project({ status: 'translation_done' }));
      }),
    ]);
    open();
    expect(await screen.findByLabelText('Translation of segment 1', {}, { timeout: 20_000 })).toBeTruthy();
  });

  it('shows the failure of a failed project', async () => {
    handlers(project({ status: 'no_audio', error_message: 'The video has no audio track' }), []);
    open();
    expect(await screen.findByText('Video has no sound')).toBeTruthy();
    expect(screen.getByText('The video has no audio track')).toBeTruthy();
  });

  it('splits, merges, adds and deletes through the transcript calls', async () => {
    let segs = [segment(0, { start: 0, end: 4, dst: { lang: 'es', text: 'uno dos tres cuatro' } }), segment(1, { start: 4, end: 6 })];
    const log: string[] = [];
    let n = 100;
    handlers(project(), segs, [
      http.patch('*/api/project/:id/transcript', async ({ request }) => {
        const b = (await request.json()) as { segments: Segment[] };
        log.push(`patch ${b.segments.map((s) => `${s.start}-${s.end}:${s.dst.text}`).join(',')}`);
        return HttpResponse.json({ segments: b.segments });
      }),
      http.post('*/api/project/:id/transcript', async ({ request }) => {
        const b = (await request.json()) as { segments: Omit<Segment, 'id' | 'status'>[] };
        log.push(`add ${b.segments.map((s) => `${s.start}-${s.end}:${s.dst.text}`).join(',')}`);
        return HttpResponse.json({ segments: b.segments.map((s) => ({ ...s, id: segment(n++).id, status: 'done' })) });
      }),
      http.post('*/api/project/:id/transcript/merge', async ({ request }) => {
        const b = (await request.json()) as { segment_ids: string[] };
        log.push(`merge ${b.segment_ids.length}`);
        const [a, c] = b.segment_ids.map((id) => segs.find((s) => s.id === id)!);
        return HttpResponse.json({ segments: [{ ...a, end: c.end, dst: { ...a.dst, text: `${a.dst.text} ${c.dst.text}` } }] });
      }),
      http.delete('*/api/project/:id/transcript/:sid', ({ params }) => {
        log.push(`delete ${params.sid}`);
        segs = segs.filter((s) => s.id !== params.sid);
        return HttpResponse.json({ ok: true });
      }),
    ]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    await userEvent.click(screen.getByRole('button', { name: 'Split segment 1' }));
    await screen.findByLabelText('Translation of segment 3');
    expect(log).toEqual(['patch 0-2:uno dos', 'add 2-4:tres cuatro']);
    expect((screen.getByLabelText('Translation of segment 2') as HTMLTextAreaElement).value).toBe('tres cuatro');

    segs = [segment(0, { start: 0, end: 2, dst: { lang: 'es', text: 'uno dos' } }), segment(100, { start: 2, end: 4, dst: { lang: 'es', text: 'tres cuatro' } }), segment(1, { start: 4, end: 6 })];
    await userEvent.click(screen.getByRole('button', { name: 'Merge segment 1 with the next' }));
    await waitFor(() => expect(screen.queryByLabelText('Translation of segment 3')).toBeNull());
    expect(log[2]).toBe('merge 2');
    expect((screen.getByLabelText('Translation of segment 1') as HTMLTextAreaElement).value).toBe('uno dos tres cuatro');

    await userEvent.click(screen.getByRole('button', { name: 'Delete segment 2' }));
    await waitFor(() => expect(screen.queryByLabelText('Translation of segment 2')).toBeNull());
    expect(log[3]).toBe(`delete ${segment(1).id}`);

    await userEvent.click(screen.getByRole('button', { name: 'Add segment' }));
    await screen.findByLabelText('Translation of segment 2');
    expect(log[4]).toBe('add 4-6:');
  });

  it('failed structural edits show the save failure text', async () => {
    handlers(project(), [segment(0), segment(1)], [
      http.delete('*/api/project/:id/transcript/:sid', () => HttpResponse.json({ detail: 'nope' }, { status: 500 })),
    ]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    await userEvent.click(screen.getByRole('button', { name: 'Delete segment 1' }));
    expect(await screen.findByTestId('segment-save-error')).toBeTruthy();
    expect(screen.getByLabelText('Translation of segment 1')).toBeTruthy();
    expect(row(0).dataset.error).toBe('true');
  });

  it('speakers: rename and choose a voice', async () => {
    const patches: unknown[] = [];
    handlers(project(), [segment(0)], [
      http.patch('*/api/project/:id', async ({ request }) => {
        const b = (await request.json()) as { speakers: { id: string; name?: string; voice_id?: string }[] };
        patches.push(b);
        const s = b.speakers[0];
        return HttpResponse.json(project({ speakers: [{ id: 'S1', name: s.name ?? 'Speaker 1', voice_id: s.voice_id ?? null, gender: null }] }));
      }),
    ]);
    open();
    await screen.findByLabelText('Translation of segment 1');
    const name = screen.getByLabelText('Name of speaker Speaker 1');
    await userEvent.clear(name);
    await userEvent.type(name, 'Anna');
    await userEvent.tab();
    await waitFor(() => expect(patches).toEqual([{ speakers: [{ id: 'S1', name: 'Anna' }] }]));
    await userEvent.selectOptions(await screen.findByLabelText('Voice of Anna'), 'v1');
    await waitFor(() => expect(patches[1]).toEqual({ speakers: [{ id: 'S1', voice_id: 'v1' }] }));
  });
});
