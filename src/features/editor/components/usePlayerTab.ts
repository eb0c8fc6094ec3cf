// Which video the editor's player shows (original, translated, lip-synced): a freshly generated video or lip-sync
// result opens in its tab, and a tab whose video is gone falls back.
import { useEffect, useRef, useState } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import { isFinished } from '../../../../contract/statuses';
import type { PlayerTab } from './Player';

export function usePlayerTab(project: Project) {
  const [tab, setTab] = useState<PlayerTab>(project.translated_video && isFinished(project.status) ? 'translated' : 'original');

  // A freshly generated video opens in the Translated tab.
  const lastVideo = useRef(project.translated_video);
  useEffect(() => {
    if (project.translated_video && project.translated_video !== lastVideo.current && isFinished(project.status)) setTab('translated');
    if (!project.translated_video) setTab('original');
    lastVideo.current = project.translated_video;
  }, [project.translated_video, project.status]);

  // A fresh lip-sync result opens in its own tab.
  const lastLipsync = useRef(project.lipsync_info.lipsync_result_path);
  useEffect(() => {
    const url = project.lipsync_info.lipsync_result_path;
    if (url && lastLipsync.current === null && project.lipsync_info.status === 'done') setTab('lipsync');
    if (!url && tab === 'lipsync') setTab(project.translated_video ? 'translated' : 'original');
    lastLipsync.current = url;
  }, [project.lipsync_info.lipsync_result_path, project.lipsync_info.status, project.translated_video, tab]);

  return [tab, setTab] as const;
}
