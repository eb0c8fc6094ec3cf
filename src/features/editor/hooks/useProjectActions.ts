// The editor's project-wide actions: generate (after saving the edits), downloads, burned subtitles, the face
// check and lip-sync. Failures become a toast; a 402 also runs the app-wide payment path, a 403 on lip-sync opens
// the pricing page on lip-sync.
import { useState } from 'react';
import type { KeyedMutator } from 'swr';
import { useLocation } from 'wouter';
import { TEXT } from '../../../../contract/errors';
import type { Project } from '../../../../contract/schemas/project';
import { errorMessage, isApiError, type ApiError } from '../../../lib/http';
import { useToast } from '../../../ui/toasts';
import { burnSubtitles, cancelRun, generate, mediaDownload, runCheckFaces, runLipsync, type MediaType } from '../api';
import { triggerDownload } from '../lib/download';

const paymentText = (e: unknown) => (isApiError(e) && e.status === 402 ? (e as ApiError).detailText ?? TEXT.noCredits : errorMessage(e));

export function useProjectActions(pid: string, mutateProject: KeyedMutator<Project>, save: () => Promise<boolean>) {
  const toast = useToast();
  const [, navigate] = useLocation();
  const [generating, setGenerating] = useState(false);

  const onGenerate = async () => {
    setGenerating(true);
    try {
      if (!(await save())) return;
      const p = await generate(pid);
      await mutateProject(p, { revalidate: true });
    } catch (e) {
      toast.show(paymentText(e), { error: true });
    } finally {
      setGenerating(false);
    }
  };

  const onDownload = async (t: MediaType) => {
    try {
      const { url } = await mediaDownload(pid, t);
      triggerDownload(url);
    } catch (e) {
      toast.show(errorMessage(e), { error: true });
    }
  };

  const onBurn = async () => {
    try {
      await mutateProject(await burnSubtitles(pid, 'translated'), { revalidate: true });
      toast.show('Burning subtitles into the video…');
    } catch (e) {
      toast.show(errorMessage(e), { error: true });
    }
  };

  const onCheckFaces = async () => {
    try {
      await mutateProject(await runCheckFaces(pid), { revalidate: true });
    } catch (e) {
      if (isApiError(e) && e.status === 403) navigate('/pricing?tab=lip_sync');
      else toast.show(errorMessage(e), { error: true });
    }
  };

  const onLipsync = async (o: { isMultipleSpeakers: boolean }) => {
    try {
      await mutateProject(await runLipsync(pid, o), { revalidate: true });
      toast.show('Lip-sync started');
    } catch (e) {
      if (isApiError(e) && e.status === 403) navigate('/pricing?tab=lip_sync');
      else toast.show(paymentText(e), { error: true });
    }
  };

  const [stopping, setStopping] = useState(false);
  /** Stops the running dub (its minutes come back). */
  const onStop = async () => {
    setStopping(true);
    try {
      await mutateProject(await cancelRun(pid), { revalidate: true });
    } catch (e) {
      toast.show(errorMessage(e), { error: true });
    } finally {
      setStopping(false);
    }
  };

  return { generating, onGenerate, onDownload, onBurn, onCheckFaces, onLipsync, stopping, onStop };
}
