import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Project } from '../../contract/schemas/project';
import { FolderPage, ProjectsHome } from '../../src/features/projects';
import { appHandlers, project, renderRoute, server, SPACE } from './projects-harness';

function daysAgo(n: number): string {
  const d = new Date();
  d.setDate(d.getDate() - n);
  return d.toISOString();
}

/** Serves the paginated list and records every query. */
function listHandler(all: Project[], calls: URLSearchParams[]) {
  return http.get('*/api/project/paginated', ({ request }) => {
    const q = new URL(request.url).searchParams;
    calls.push(q);
    const name = (q.get('name') ?? '').toLowerCase();
    const offset = Number(q.get('offset'));
    const limit = Number(q.get('limit'));
    const hits = all.filter((p) => p.name.toLowerCase().includes(name));
    return HttpResponse.json({ data: hits.slice(offset, offset + limit), offset, total: hits.length });
  });
}

const many = (n: number) =>
  Array.from({ length: n }, (_, i) => project({ id: `p${i}`, name: `Video ${i}`, status: 'merging_done', created_date: daysAgo(i % 5) }));

afterEach(() => {
  vi.useRealTimers();
});

describe('translation list', () => {
  it('asks for the page of the URL with the offset rule (page 2 -> offset 24) and the search text', async () => {
    const calls: URLSearchParams[] = [];
    const cats = Array.from({ length: 30 }, (_, i) => project({ id: `c${i}`, name: `Cat ${i}`, created_date: daysAgo(0) }));
    server.use(...appHandlers(), listHandler([...many(10), ...cats], calls));
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}?page=2&searchText=cat`, <ProjectsHome />);

    await screen.findByText('Cat 24');
    const q = calls[calls.length - 1];
    expect(q.get('offset')).toBe('24');
    expect(q.get('limit')).toBe('24');
    expect(q.get('name')).toBe('cat');
    expect(q.get('space_id')).toBe(SPACE);
    expect(screen.getAllByTestId('project-card')).toHaveLength(6);
    expect(screen.getByText('Page 2 of 2')).toBeTruthy();
    expect((screen.getByLabelText('Search projects') as HTMLInputElement).value).toBe('cat');
  });

  it('shows the list when the live stream speaks before the first page has arrived', async () => {
    let eventSent!: () => void;
    const sent = new Promise<void>((r) => (eventSent = r));
    const enc = new TextEncoder();
    server.use(
      http.get('*/api/project/events', () => {
        const body = new ReadableStream<Uint8Array>({
          start(c) {
            c.enqueue(enc.encode('event: ready\ndata: {}\n\n'));
            c.enqueue(enc.encode(`event: project\ndata: ${JSON.stringify({ id: 'p1', space_id: SPACE, status: 'merging_done', progress: 100 })}\n\n`));
            setTimeout(eventSent, 50);
          },
        });
        return new HttpResponse(body, { headers: { 'content-type': 'text/event-stream' } });
      }),
      http.get('*/api/project/paginated', async () => {
        await sent;
        await new Promise((r) => setTimeout(r, 50));
        return HttpResponse.json({ data: many(3), offset: 0, total: 3 });
      }),
      ...appHandlers(),
    );
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    expect(await screen.findByText('Video 2', {}, { timeout: 20_000 })).toBeTruthy();
  });

  it('shows status labels, progress, and Today / Yesterday / day.month.year', async () => {
    // A fixed midday clock (only Date is faked, and it keeps running): a run that crosses midnight between making
    // the fixtures and rendering the cards cannot turn Today into Yesterday.
    vi.useFakeTimers({ toFake: ['Date'], now: new Date(2025, 4, 15, 12, 0), shouldAdvanceTime: true });
    const calls: URLSearchParams[] = [];
    server.use(
      ...appHandlers(),
      listHandler(
        [
          project({ id: 'a', name: 'Working', status: 'transcription_started', progress: 10, created_date: daysAgo(0) }),
          project({ id: 'b', name: 'Done', status: 'merging_done', created_date: daysAgo(1) }),
          project({ id: 'c', name: 'Srt', status: 'transcription_started', src_srt_uploaded: true, created_date: new Date(2024, 0, 5, 12).toISOString() }),
          project({ id: 'd', name: 'Silent', status: 'no_words', created_date: daysAgo(0) }),
        ],
        calls,
      ),
    );
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    const card = async (name: string) => (await screen.findByText(name)).closest('[data-testid="project-card"]') as HTMLElement;

    const working = await card('Working');
    expect(within(working).getByText('Transcribing video')).toBeTruthy();
    expect(within(working).getAllByText('10%').length).toBeGreaterThan(0);
    expect(within(working).getByText('Today')).toBeTruthy();
    const done = await card('Done');
    expect(within(done).getByText('Video is generated')).toBeTruthy();
    expect(within(done).getByText('Yesterday')).toBeTruthy();
    expect(within(done).queryByText('100%')).toBeNull();
    const srt = await card('Srt');
    expect(within(srt).getByText('Analyzing SRT')).toBeTruthy();
    expect(within(srt).getByText('05.01.2024')).toBeTruthy();
    expect(within(await card('Silent')).getByText('Video lacks speech')).toBeTruthy();
    expect(calls[0].get('offset')).toBe('0');
    expect(calls[0].has('name')).toBe(false);
  });

  it('pages with Next and searches from the first page', async () => {
    const calls: URLSearchParams[] = [];
    server.use(...appHandlers(), listHandler(many(30), calls));
    const { mem } = renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    await screen.findByText('Video 0');
    expect(screen.getAllByTestId('project-card')).toHaveLength(24);
    expect(screen.getByText('Page 1 of 2')).toBeTruthy();

    await userEvent.click(screen.getByRole('button', { name: /next/i }));
    await screen.findByText('Video 29');
    expect(calls[calls.length - 1].get('offset')).toBe('24');
    expect(mem.history[mem.history.length - 1]).toContain('page=2');
    expect(screen.getAllByTestId('project-card')).toHaveLength(6);

    await userEvent.type(screen.getByLabelText('Search projects'), 'Video 1');
    await waitFor(() => expect(calls[calls.length - 1].get('name')).toBe('Video 1'));
    expect(calls[calls.length - 1].get('offset')).toBe('0');
    expect(mem.history[mem.history.length - 1]).toMatch(/searchText=Video\+1/);
    expect(mem.history[mem.history.length - 1]).not.toContain('page=');
  });

  it('shows the empty state without projects', async () => {
    server.use(...appHandlers(), listHandler([], []));
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    expect(await screen.findByText('Translate your first video')).toBeTruthy();
  });

  it('shows no results for a search that finds nothing', async () => {
    server.use(...appHandlers(), listHandler(many(3), []));
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}?searchText=zebra`, <ProjectsHome />);
    expect(await screen.findByText('No projects found')).toBeTruthy();
  });

  it('renames and deletes from the card', async () => {
    let items = [project({ id: 'a', name: 'First' }), project({ id: 'b', name: 'Second' })];
    const patched: unknown[] = [];
    const deleted: string[] = [];
    server.use(
      ...appHandlers(),
      http.get('*/api/project/paginated', () => HttpResponse.json({ data: items, offset: 0, total: items.length })),
      http.patch('*/api/project/:id', async ({ request, params }) => {
        const body = (await request.json()) as { name: string };
        patched.push(body);
        items = items.map((p) => (p.id === params.id ? { ...p, ...body } : p));
        return HttpResponse.json(items.find((p) => p.id === params.id));
      }),
      http.delete('*/api/project/:id', ({ params }) => {
        deleted.push(String(params.id));
        items = items.filter((p) => p.id !== params.id);
        return HttpResponse.json({ ok: true });
      }),
    );
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    await screen.findByText('First');

    await userEvent.click(screen.getByRole('button', { name: 'Actions for First' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Rename' }));
    const input = await screen.findByLabelText('Name');
    await userEvent.clear(input);
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(patched).toHaveLength(0); // empty name is refused
    expect(screen.getByText('Field is required')).toBeTruthy();
    await userEvent.type(input, 'Renamed');
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await screen.findByText('Renamed');
    expect(patched).toEqual([{ name: 'Renamed' }]);

    await userEvent.click(screen.getByRole('button', { name: 'Actions for Second' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Delete' }));
    await userEvent.click(await screen.findByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(screen.queryByText('Second')).toBeNull());
    expect(deleted).toEqual(['b']);
  });

  it('moves a project to a new folder and lists folders with links', async () => {
    let items = [project({ id: 'a', name: 'First' })];
    const patched: unknown[] = [];
    let folders: { id: string; count: number }[] = [];
    server.use(
      http.get('*/api/project/folders', () => HttpResponse.json({ data: folders })),
      ...appHandlers(),
      http.get('*/api/project/paginated', () => HttpResponse.json({ data: items, offset: 0, total: items.length })),
      http.patch('*/api/project/:id', async ({ request }) => {
        const body = (await request.json()) as { folder_id: string };
        patched.push(body);
        items = items.map((p) => ({ ...p, folder_id: body.folder_id }));
        folders = [{ id: body.folder_id, count: 1 }];
        return HttpResponse.json(items[0]);
      }),
    );
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    await screen.findByText('First');
    await userEvent.click(screen.getByRole('button', { name: 'Actions for First' }));
    await userEvent.click(await screen.findByRole('menuitem', { name: 'Move to folder' }));
    await userEvent.type(await screen.findByLabelText('Folder name'), 'Marketing');
    await userEvent.click(screen.getByRole('button', { name: 'Move' }));
    await waitFor(() => expect(patched).toEqual([{ folder_id: 'Marketing' }]));
    const link = await screen.findByRole('link', { name: /Marketing/ });
    expect(link.getAttribute('href')).toBe(`/spaces/${SPACE}/folders/Marketing`);
  });

  it('a folder page asks for its folder and shows only its projects', async () => {
    const calls: URLSearchParams[] = [];
    server.use(
      ...appHandlers(),
      http.get('*/api/project/paginated', ({ request }) => {
        calls.push(new URL(request.url).searchParams);
        return HttpResponse.json({
          data: [project({ id: 'a', name: 'In folder', folder_id: 'Marketing' }), project({ id: 'b', name: 'Elsewhere' })],
          offset: 0,
          total: 2,
        });
      }),
    );
    renderRoute('/spaces/:spaceId/folders/:folderId', `/spaces/${SPACE}/folders/Marketing`, <FolderPage />);
    expect(await screen.findByText('In folder')).toBeTruthy();
    expect(screen.queryByText('Elsewhere')).toBeNull();
    expect(calls[0].get('folder_id')).toBe('Marketing');
    expect(screen.getByRole('heading', { name: 'Marketing' })).toBeTruthy();
  });

  it('a cancelled project reads as cancelled, without an error or "What went wrong?"; a failed one keeps them', async () => {
    server.use(
      ...appHandlers(),
      listHandler(
        [
          project({ id: 'x', name: 'Stopped', status: 'separate_background_failed', error_code: 'cancelled', error_message: 'The processing was cancelled' }),
          project({ id: 'y', name: 'Stopped dub', status: 'voiceover_failed', error_code: 'cancelled', error_message: 'The processing was cancelled' }),
          project({ id: 'z', name: 'Broken', status: 'voiceover_failed', error_code: 'tts_failed', error_message: 'The voice engine failed' }),
        ],
        [],
      ),
    );
    renderRoute('/spaces/:spaceId', `/spaces/${SPACE}`, <ProjectsHome />);
    const card = async (name: string) => (await screen.findByText(name)).closest('[data-testid="project-card"]') as HTMLElement;
    const stopped = await card('Stopped');
    expect(within(stopped).getByText('Cancelled')).toBeTruthy();
    expect(within(stopped).queryByText('Audio separation failed')).toBeNull();
    expect(within(stopped).queryByText('The processing was cancelled')).toBeNull();
    expect(within(stopped).queryByRole('button', { name: /What went wrong/ })).toBeNull();
    const dub = await card('Stopped dub');
    expect(within(dub).getByText('Dubbing cancelled')).toBeTruthy();
    expect(within(dub).queryByRole('button', { name: /What went wrong/ })).toBeNull();
    const broken = await card('Broken');
    expect(within(broken).getByText('Voiceover failed')).toBeTruthy();
    expect(within(broken).getByText('The voice engine failed')).toBeTruthy();
    expect(within(broken).getByRole('button', { name: /What went wrong/ })).toBeTruthy();
  });
});
