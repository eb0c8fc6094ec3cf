// Stopping a run from the app: "Stop processing" while the video is analysed (then "Start again"), and "Stop" on
// the dubbed-video card while it is generated. A cancelled project reads as cancelled, not as a failure.
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import type { Project } from '../../contract/schemas/project';
import { ProjectEditor } from '../../src/features/editor/components/EditorPage';
import { appHandlers, project, renderRoute, segment, server, SPACE } from './projects-harness';

const PATTERN = '/spaces/:spaceId/project/:projectId';
const open = () => renderRoute(PATTERN, `/spaces/${SPACE}/project/p1`, <ProjectEditor />);

function serve(state: { p: Project }, calls: string[]) {
  server.use(
    ...appHandlers(),
    http.get('*/api/project/:id', () => HttpResponse.json(state.p)),
    http.get('*/api/project/:id/transcript', () => HttpResponse.json({ segments: [segment(0)] })),
    http.get('*/api/project/:id/voice_pool', () => HttpResponse.json({ voices: [] })),
    http.post('*/api/project/:id/cancel', () => {
      calls.push('cancel');
      const dub = state.p.status.startsWith('voiceover') || state.p.status.startsWith('merging');
      state.p = { ...state.p, status: dub ? 'voiceover_failed' : 'transcription_failed', error_code: 'cancelled', error_message: 'The processing was cancelled' };
      return HttpResponse.json(state.p);
    }),
    http.post('*/api/project/:id/restart', () => {
      calls.push('restart');
      state.p = { ...state.p, status: 'transcription_started', error_code: null, error_message: null, progress: 10 };
      return HttpResponse.json(state.p);
    }),
  );
}

describe('stopping a run', { timeout: 60_000 }, () => {
  it('stops the analysis, shows it cancelled, and starts it again', async () => {
    const calls: string[] = [];
    const state = { p: project({ status: 'transcription_started', progress: 10 }) };
    serve(state, calls);
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Stop processing' }));
    expect(await screen.findByText('Cancelled')).toBeTruthy();
    expect(screen.queryByText('Transcription failed')).toBeNull();
    expect(screen.getByText(/You stopped the analysis of this video/)).toBeTruthy();
    await userEvent.click(screen.getByRole('button', { name: 'Start again' }));
    await waitFor(() => expect(screen.getByRole('button', { name: 'Stop processing' })).toBeTruthy());
    expect(calls).toEqual(['cancel', 'restart']);
  });

  it('stops a dub being generated: "Dubbing cancelled", no minutes spent', async () => {
    const calls: string[] = [];
    const state = { p: project({ status: 'voiceover_started', progress: 65 }) };
    serve(state, calls);
    open();
    await userEvent.click(await screen.findByRole('button', { name: 'Stop' }));
    expect(await screen.findByText(/Dubbing cancelled: no minutes were spent/)).toBeTruthy();
    expect(screen.queryByText(/Voiceover failed/)).toBeNull();
    expect(calls).toEqual(['cancel']);
  });
});
