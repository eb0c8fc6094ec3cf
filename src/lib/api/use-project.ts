// One project (GET /api/project/{id}): the SWR hook and key shared by the translation list and the editor.
// It polls while the project changes without the user (pipeline stages, subtitle burning, face check, lip-sync).
import type { Project } from '../../../contract/schemas/project';
import { isWorking } from '../../../contract/statuses';
import { applyLiveEvent, LIVE_POLL_MS, useLiveEvents } from '../live';
import { useApiGet } from './use-api-get';

export const PROJECT_POLL_MS = 2000;

const project = (id: string) => ({ params: { path: { id } } });

/** True while the project changes on its own (the page polls it). */
export function isProjectWorking(p: Pick<Project, 'status' | 'error_code' | 'subtitles_burn_state' | 'lipsync_info' | 'face_check'>): boolean {
  return isWorking(p.status, p.error_code) || p.subtitles_burn_state === 'processing' || p.lipsync_info?.status === 'processing'
    || p.face_check?.status === 'processing';
}

/**
 * The project, its status and progress pushed live (server-sent events, GET /api/project/{id}/events) with
 * polling as the fallback; side tasks (subtitles, face check, lip-sync) are polled.
 */
export function useProject(id: string | null) {
  let live = false;
  const swr = useApiGet('/api/project/{id}', id ? project(id) : null, {
    refreshInterval: (p) => {
      if (!p || !isProjectWorking(p)) return 0;
      const sideTask = p.subtitles_burn_state === 'processing' || p.lipsync_info?.status === 'processing' || p.face_check?.status === 'processing';
      return live && !sideTask ? LIVE_POLL_MS : PROJECT_POLL_MS;
    },
  });
  const { mutate } = swr;
  live = useLiveEvents(id ? `project/${encodeURIComponent(id)}/events` : null, (e) => {
    // Before the first answer there is nothing to patch: a mutation now would make SWR drop the answer in
    // flight (its race rule), leaving the page loading. Read the project instead.
    if (!swr.data) {
      void mutate();
      return;
    }
    let stale = false;
    void mutate(
      (p) => {
        if (!p) return p;
        const r = applyLiveEvent(p, e);
        stale = r.stale;
        return r.project;
      },
      { revalidate: false },
    ).then(() => {
      // a new status brings other fields (transcript ready, results): read the project again
      if (stale) void mutate();
    });
  });
  return swr;
}
