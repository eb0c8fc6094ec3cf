// The editor: player, speakers, segment list, generate, downloads, feedback. Edits save themselves shortly after
// typing stops (autosaveTiming; the spec's save-failure behaviour when a save fails); the minutes left are in the
// header, Generate says what it will spend and, without enough minutes, why it cannot run (with a way to get
// more, in place).
// The parts: useEditorData (the transcript, saving), useSegmentActions (selection, split, merge ...), usePlayerTab,
// and EditorHeader, EditorBanners, EditorSidePanels, TranscriptPane, the Timeline and EditorDialogs.
import { BlockStack } from '@shopify/polaris';
import { useSetAtom } from 'jotai';
import { useDeferredValue, useEffect, useMemo, useState } from 'react';
import type { KeyedMutator } from 'swr';
import { useLocation } from 'wouter';
import { minutesNeeded } from '../../../../contract/constants';
import type { Project } from '../../../../contract/schemas/project';
import { useFeatureAvailable } from '../../../lib/api/use-settings';
import { useCredits } from '../../../lib/api/use-credits';
import { getMoreMinutesAtom } from '../../../lib/state';
import { canGenerate, isBusy } from '../lib/generate';
import { useProjectActions } from '../hooks/useProjectActions';
import { Timeline } from '../timeline/Timeline';
import { EditorBanners } from './EditorBanners';
import { EditorDialogs } from './EditorDialogs';
import { EditorHeader } from './EditorHeader';
import { EditorSidePanels } from './EditorSidePanels';
import { TranscriptPane } from './TranscriptPane';
import { useEditorData } from './useEditorData';
import { usePlayerTab } from './usePlayerTab';
import { useSegmentActions } from './useSegmentActions';

/** @internal (tests) */
export { autosaveTiming } from './useEditorData';

/** Minutes a Generate spends: the whole video the first time, then the changed segments (rounded up). */
export function generateCost(project: Pick<Project, 'duration' | 'translated_video'>, segments: { start: number; end: number; status?: string }[], dirty: ReadonlySet<string> & { has(id: string): boolean }, ids: (i: number) => string): number {
  if (!project.translated_video) return minutesNeeded(project.duration ?? 0);
  let seconds = 0;
  segments.forEach((s, i) => {
    if (dirty.has(ids(i)) || s.status === 'updated' || s.status === 'error') seconds += Math.max(0, s.end - s.start);
  });
  return minutesNeeded(seconds);
}

export interface EditorViewProps {
  project: Project;
  spaceId: string;
  mutateProject: KeyedMutator<Project>;
}

export function EditorView({ project, spaceId, mutateProject }: EditorViewProps) {
  const pid = project.id;
  const data = useEditorData(project, mutateProject);
  const { store, snap, segments, loaded, save } = data;
  // The timeline (canvases redrawn on each render) follows the segments in a deferred render: a keystroke in a
  // translation paints first, the timeline catches up right after (INP with hundreds of segments).
  const timelineSegments = useDeferredValue(segments);
  const timelineDirty = useDeferredValue(snap.dirty);
  const canTimeline = useFeatureAvailable('audio_track_editor');
  const [, navigate] = useLocation();
  const { data: credits, mutate: reloadCredits } = useCredits(spaceId);
  const openMoreMinutes = useSetAtom(getMoreMinutesAtom);
  const [confirmGenerate, setConfirmGenerate] = useState(false);
  const [tab, setTab] = usePlayerTab(project);
  const [feedbackOpen, setFeedbackOpen] = useState(false);
  const [copyOpen, setCopyOpen] = useState(false);
  const [timelineCollapsed, setTimelineCollapsed] = useState(false);
  const seg = useSegmentActions({
    project, mutateProject, store, segments, list: data.list, showSaveError: data.showSaveError, setNotice: data.setNotice,
  });

  const actions = useProjectActions(pid, mutateProject, () => save());
  const { generating } = actions;
  // What a generation or lip-sync spent shows at once in the header.
  useEffect(() => {
    void reloadCredits();
  }, [project.status, project.lipsync_info.status, reloadCredits]);
  const readOnly = isBusy(project.status) || generating;

  const speakerOptions = useMemo(() => project.speakers.map((s) => ({ id: s.id, name: s.name })), [project.speakers]);
  const localChanges = snap.dirty.size;
  const minutesLeft = credits ? Math.max(0, credits.minutes.total - credits.minutes.used) : null;
  const cost = generateCost(project, segments, snap.dirty, (i) => segments[i].id);
  const shortOfMinutes = minutesLeft !== null && cost > minutesLeft;
  const generateEnabled = canGenerate(project, localChanges) && !generating && loaded && !shortOfMinutes;
  const working = isBusy(project.status);

  return (
    <div className="ed-page" style={{ padding: 'var(--p-space-400)' }}>
      <BlockStack gap="400">
        <EditorHeader
          project={project}
          onBack={() => data.guard.confirmThen(() => navigate(`/spaces/${spaceId}`))}
          saveState={data.saveState}
          canSaveNow={data.unsaved && !snap.saving}
          onSave={() => void save()}
          readOnly={readOnly}
          working={working}
          minutesLeft={minutesLeft}
          shortOfMinutes={shortOfMinutes}
          onDownload={(t) => void actions.onDownload(t)}
          onBurn={() => void actions.onBurn()}
          onCopy={() => setCopyOpen(true)}
          onFeedback={() => setFeedbackOpen(true)}
          generateEnabled={generateEnabled}
          generating={generating}
          onGenerate={() => setConfirmGenerate(true)}
        />
        <EditorBanners
          short={shortOfMinutes && canGenerate(project, localChanges) ? { cost, minutesLeft } : null}
          onBuyMinutes={() => openMoreMinutes(true)}
          saveFailed={data.saveFailed}
          onDismissSaveError={data.hideSaveError}
          notice={data.notice}
          onDismissNotice={() => data.setNotice(null)}
          loadError={data.transcriptError && !data.transcript ? data.transcriptError.message : null}
          onRetryLoad={() => void data.reloadTranscript()}
        />

        <div className="ed-layout">
          <EditorSidePanels
            project={project}
            spaceId={spaceId}
            mutateProject={mutateProject}
            player={seg.player}
            tab={tab}
            onTabChange={setTab}
            onTime={seg.onTime}
            readOnly={readOnly}
            working={working}
            localChanges={localChanges}
            actions={actions}
            selected={seg.selectedId ? (segments.find((x) => x.id === seg.selectedId) ?? null) : null}
            onOpenSegment={seg.onOpenSegment}
            onAcceptRewrite={(id, text) => store.update(id, { dstText: text })}
          />
          <TranscriptPane
            project={project}
            listRef={data.list}
            segments={segments}
            dirty={snap.dirty}
            selectedId={seg.selectedId}
            activeId={seg.activeId}
            speakers={speakerOptions}
            loaded={loaded}
            loadFailed={!!data.transcriptError}
            readOnly={readOnly}
            onAdd={seg.onAdd}
            onSelect={seg.onSelect}
            onChange={seg.onChange}
            onInvalid={data.onInvalid}
            onPlay={seg.onPlay}
            onSplit={seg.onSplit}
            onMergeNext={seg.onMergeNext}
            onDelete={seg.onDelete}
            onServerSegment={seg.onServerSegment}
          />
        </div>
        {canTimeline && loaded && (
          <div className="tl-dock">
            <Timeline
              ref={seg.timeline}
              projectId={pid}
              durationSec={project.duration}
              segments={timelineSegments}
              speakers={speakerOptions}
              selectedId={seg.selectedId}
              dirty={timelineDirty}
              readOnly={readOnly}
              sourceReady={project.duration != null}
              dubVersion={project.voiceover ?? project.translated_audio}
              collapsed={timelineCollapsed}
              onCollapsedChange={setTimelineCollapsed}
              onSelect={seg.onTimelineSelect}
              onSeek={seg.onTimelineSeek}
              onChange={seg.onTimelineChange}
            />
          </div>
        )}
      </BlockStack>

      <EditorDialogs
        project={project}
        spaceId={spaceId}
        guard={data.guard}
        confirmGenerate={confirmGenerate}
        onCloseGenerate={() => setConfirmGenerate(false)}
        onGenerate={() => void actions.onGenerate()}
        cost={cost}
        minutesLeft={minutesLeft}
        feedbackOpen={feedbackOpen}
        onCloseFeedback={() => setFeedbackOpen(false)}
        copyOpen={copyOpen}
        onCloseCopy={() => setCopyOpen(false)}
      />
    </div>
  );
}
