// The editor: player, segment list, speakers, generate, downloads, feedback.
import { Badge, Banner, BlockStack, Button, InlineStack, Text } from '@shopify/polaris';
import { useCallback, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { KeyedMutator } from 'swr';
import { useLocation } from 'wouter';
import { SEGMENT_SAVE_ERROR_MS } from '../../../../contract/constants';
import { TEXT } from '../../../../contract/errors';
import type { Project } from '../../../../contract/schemas/project';
import { isFinished, isProblem, projectStatusLabel } from '../../../../contract/statuses';
import { useFeature, useFeatureAvailable, useSettings } from '../../../lib/api/use-settings';
import { DiscardChangesModal } from '../../../ui/discard-modal';
import { useToast } from '../../../ui/toasts';
import {
  addSegments, copyProject, deleteSegment, instantCloneSpeaker, mergeSegments, patchSegments, sendFeedback, updateSpeakers, useTranscript, useVoicePool,
} from '../api';
import { canGenerate, isBusy } from '../lib/generate';
import { newSegmentSlot, segmentAt, splitSegment, toServer } from '../lib/segments';
import { TranscriptStore } from '../lib/store';
import { useLeaveGuard } from '../useLeaveGuard';
import { CopyModal } from './CopyModal';
import { DownloadsMenu } from './DownloadsMenu';
import { FeedbackModal } from '../../../ui/feedback-modal';
import { LipsyncPanel } from './LipsyncPanel';
import { QualityPanel } from './QualityPanel';
import { useSegmentFlags } from './SegmentFlags';
import { RewritePanel, type RewriteAccess } from './RewritePanel';
import { Player, type PlayerHandle, type PlayerTab } from './Player';
import { SegmentList, type SegmentListHandle } from './SegmentList';
import { SpeakersPanel } from './SpeakersPanel';
import { GenerateCard } from './GenerateCard';
import { useProjectActions } from '../hooks/useProjectActions';
import { DictionaryPanel } from './DictionaryPanel';
import { Timeline, timelineHeight, type TimelineHandle } from '../timeline/Timeline';

export const TRANSCRIPT_POLL_MS = 2000;

export interface EditorViewProps {
  project: Project;
  spaceId: string;
  mutateProject: KeyedMutator<Project>;
}

export function EditorView({ project, spaceId, mutateProject }: EditorViewProps) {
  const pid = project.id;
  const segmentFlags = useSegmentFlags(pid, project.translated_audio && isFinished(project.status) ? project.translated_audio : null);
  const [store] = useState(() => new TranscriptStore());
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const segments = snap.segments;
  const anyProcessing = segments.some((s) => s.status === 'processing');
  const { data: transcript, error: transcriptError, mutate: reloadTranscript } = useTranscript(pid, anyProcessing ? TRANSCRIPT_POLL_MS : 0);
  const { data: voicePool } = useVoicePool(pid);
  const { settings } = useSettings();
  const canSrt = useFeatureAvailable('srt_download');
  const canAudio = useFeatureAvailable('audio_download');
  const canInstantClone = useFeatureAvailable('instant_voice_preset');
  const canBurn = useFeatureAvailable('subtitles');
  const canLipsync = useFeatureAvailable('lipsync');
  const canDictionary = useFeatureAvailable('glossary');
  const canTimeline = useFeatureAvailable('audio_track_editor');
  const rewriteFeature = useFeature('ai_rewrite');
  const canRewrite = useFeatureAvailable('ai_rewrite');
  const rewriteAccess: RewriteAccess = canRewrite
    ? 'on'
    : rewriteFeature?.metadata.not_configured
      ? 'not_configured'
      : rewriteFeature?.visible
        ? 'locked'
        : 'hidden';
  const toast = useToast();
  const [, navigate] = useLocation();

  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [activeId, setActiveId] = useState<string | null>(null);
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());
  const [saveErrorAt, setSaveErrorAt] = useState<number | null>(null);
  const [tab, setTab] = useState<PlayerTab>(project.translated_video && isFinished(project.status) ? 'translated' : 'original');
  const [feedbackOpen, setFeedbackOpen] = useState(false);
  const [copyOpen, setCopyOpen] = useState(false);
  const [loaded, setLoaded] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const player = useRef<PlayerHandle>(null);
  const list = useRef<SegmentListHandle>(null);
  const timeline = useRef<TimelineHandle>(null);
  const [timelineCollapsed, setTimelineCollapsed] = useState(false);
  const segmentsRef = useRef(segments);
  segmentsRef.current = segments;

  useEffect(() => {
    if (!transcript) return;
    store.receive(transcript.segments);
    setLoaded(true);
  }, [transcript, store]);

  // A new status (generated, voices updated ...) can change segment statuses: reload them.
  const lastStatus = useRef(project.status);
  useEffect(() => {
    if (lastStatus.current === project.status) return;
    lastStatus.current = project.status;
    void reloadTranscript();
  }, [project.status, reloadTranscript]);

  // A freshly generated video opens in the Translated tab.
  const lastVideo = useRef(project.translated_video);
  useEffect(() => {
    if (project.translated_video && project.translated_video !== lastVideo.current && isFinished(project.status)) setTab('translated');
    if (!project.translated_video) setTab('original');
    lastVideo.current = project.translated_video;
  }, [project.translated_video, project.status]);

  // The failure text stays for SEGMENT_SAVE_ERROR_MS.
  useEffect(() => {
    if (saveErrorAt === null) return;
    const t = setTimeout(() => setSaveErrorAt(null), SEGMENT_SAVE_ERROR_MS);
    return () => clearTimeout(t);
  }, [saveErrorAt]);
  const showSaveError = useCallback(() => setSaveErrorAt(Date.now()), []);

  const unsaved = snap.dirty.size > 0 || invalid.size > 0;
  const guard = useLeaveGuard(unsaved, () => {
    store.discard();
    setInvalid(new Set());
  });

  const save = useCallback(async (): Promise<boolean> => {
    if (invalid.size > 0) {
      list.current?.focus([...invalid][0]);
      return false;
    }
    if (!store.hasUnsaved()) return true;
    // Segments of the same speaker may not overlap (the server refuses them): fix first.
    const snapNow = store.getSnapshot();
    const overlapping = snapNow.segments.find((s) => snapNow.dirty.has(s.id) && s.overlappedTimestamps?.length);
    if (overlapping) {
      setNotice('Segments of the same speaker overlap: fix the start and end times before saving.');
      list.current?.focus(overlapping.id);
      return false;
    }
    setNotice(null);
    const r = await store.flush((chunk) => patchSegments(pid, chunk));
    void mutateProject();
    if (r.failed.length > 0) {
      showSaveError();
      return false;
    }
    return true;
  }, [invalid, store, pid, mutateProject, showSaveError]);

  // Ctrl/Cmd+S saves.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        void save();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [save]);

  const { generating, onGenerate, onDownload, onBurn, onCheckFaces, onLipsync, stopping, onStop } = useProjectActions(pid, mutateProject, save);
  const readOnly = isBusy(project.status) || generating;

  const onSelect = useCallback((id: string) => {
    setSelectedId(id);
    const s = store.get(id);
    if (s && !player.current?.isPlaying()) player.current?.seek(s.start);
  }, [store]);
  /** A segment opened from a panel (quality report, timeline): selected, scrolled to, its translation focused. */
  const onOpenSegment = useCallback((id: string) => {
    setSelectedId(id);
    const s = store.get(id);
    if (s && !player.current?.isPlaying()) player.current?.seek(s.start);
    list.current?.focus(id);
  }, [store]);
  const onChange = useCallback((id: string, patch: Parameters<TranscriptStore['update']>[1]) => store.update(id, patch), [store]);
  const onInvalid = useCallback((id: string, bad: boolean) => {
    setInvalid((cur) => {
      if (cur.has(id) === bad) return cur;
      const next = new Set(cur);
      if (bad) next.add(id);
      else next.delete(id);
      return next;
    });
  }, []);
  const onPlay = useCallback((id: string) => {
    const s = store.get(id);
    if (s) {
      setSelectedId(id);
      player.current?.playRange(s.start, s.end);
    }
  }, [store]);
  const onTime = useCallback((t: number, playing: boolean) => {
    timeline.current?.setPlayhead(t, playing);
    const segs = segmentsRef.current;
    const i = segmentAt(segs, t);
    const id = i >= 0 ? segs[i].id : null;
    setActiveId((cur) => {
      if (id && id !== cur && playing) list.current?.scrollTo(id, 'auto');
      return id;
    });
  }, []);

  /** A block picked on the timeline: selected, the player there, the list scrolled to it (focus stays on the timeline). */
  const onTimelineSelect = useCallback((id: string) => {
    setSelectedId(id);
    const s = store.get(id);
    if (s && !player.current?.isPlaying()) player.current?.seek(s.start);
    list.current?.scrollTo(id, 'auto');
  }, [store]);
  const onTimelineSeek = useCallback((t: number) => player.current?.seek(t), []);
  const onTimelineChange = useCallback((id: string, times: { start: number; end: number }) => store.update(id, times), [store]);

  const structural = useCallback(async (ids: string[], fn: () => Promise<void>) => {
    try {
      await fn();
      void mutateProject();
    } catch {
      for (const id of ids) store.restore(id);
      showSaveError();
    }
  }, [store, mutateProject, showSaveError]);

  const onDelete = useCallback((id: string) => {
    void structural([id], async () => {
      await deleteSegment(pid, id);
      store.remove(id);
      setSelectedId((cur) => (cur === id ? null : cur));
    });
  }, [pid, store, structural]);

  const onSplit = useCallback((id: string, caret: { field: 'src' | 'dst'; at: number } | null) => {
    const s = store.get(id);
    if (!s) return;
    let parts: ReturnType<typeof splitSegment>;
    try {
      parts = splitSegment(s, caret ? (caret.field === 'src' ? { srcAt: caret.at } : { dstAt: caret.at }) : {});
    } catch {
      return;
    }
    void structural([id], async () => {
      const [first] = await patchSegments(pid, [toServer(parts.first)]);
      store.accept(first);
      const [second] = await addSegments(pid, [parts.second]);
      store.insert(second);
      setSelectedId(second.id);
    });
  }, [pid, store, structural]);

  const onMergeNext = useCallback((id: string) => {
    const segs = segmentsRef.current;
    const i = segs.findIndex((s) => s.id === id);
    const a = segs[i];
    const b = segs[i + 1];
    if (!a || !b) return;
    void structural([a.id, b.id], async () => {
      const dirty = [a, b].filter((s) => store.getSnapshot().dirty.has(s.id));
      if (dirty.length > 0) {
        const r = await store.flush((chunk) => patchSegments(pid, chunk));
        if (r.failed.length > 0) throw new Error('save failed');
      }
      const merged = await mergeSegments(pid, [a.id, b.id]);
      const kept = new Set(merged.map((s) => s.id));
      for (const s of merged) store.accept(s);
      for (const s of [a, b]) if (!kept.has(s.id)) store.remove(s.id);
      setSelectedId(merged[0]?.id ?? null);
    });
  }, [pid, store, structural]);

  const onAdd = useCallback(() => {
    const segs = segmentsRef.current;
    const idx = selectedId ? segs.findIndex((s) => s.id === selectedId) : segs.length - 1;
    const slot = newSegmentSlot(segs, idx, project.duration);
    if (!slot) {
      setNotice('There is no free time after this segment: shorten it or select another one first.');
      return;
    }
    const speaker = segs[idx]?.speaker ?? project.speakers[0]?.id ?? 'SPEAKER_00';
    void (async () => {
      try {
        const [created] = await addSegments(pid, [
          { ...slot, speaker, src: { lang: project.src_lang, text: '' }, dst: { lang: project.dst_lang, text: '' } },
        ]);
        store.insert(created);
        setSelectedId(created.id);
        requestAnimationFrame(() => list.current?.focus(created.id));
        void mutateProject();
      } catch {
        showSaveError();
      }
    })();
  }, [selectedId, project, pid, store, mutateProject, showSaveError]);

  // A fresh lip-sync result opens in its own tab.
  const lastLipsync = useRef(project.lipsync_info.lipsync_result_path);
  useEffect(() => {
    const url = project.lipsync_info.lipsync_result_path;
    if (url && lastLipsync.current === null && project.lipsync_info.status === 'done') setTab('lipsync');
    if (!url && tab === 'lipsync') setTab(project.translated_video ? 'translated' : 'original');
    lastLipsync.current = url;
  }, [project.lipsync_info.lipsync_result_path, project.lipsync_info.status, project.translated_video, tab]);

  const speakerOptions = useMemo(() => project.speakers.map((s) => ({ id: s.id, name: s.name })), [project.speakers]);
  const localChanges = snap.dirty.size;
  const generateEnabled = canGenerate(project, localChanges) && !generating && loaded;
  const working = isBusy(project.status);
  const dstOptions = useMemo(
    () => [...(settings?.languages.translation ?? [])].sort((a, b) => a.id - b.id).map((l) => ({ label: l.translation_label || l.label, value: l.value })),
    [settings],
  );

  return (
    <div className="ed-page" style={{ padding: 'var(--p-space-400)' }}>
      <BlockStack gap="400">
        <InlineStack align="space-between" blockAlign="center" gap="300">
          <InlineStack gap="300" blockAlign="center" wrap={false}>
            <Button variant="tertiary" onClick={() => guard.confirmThen(() => navigate(`/spaces/${spaceId}`))} accessibilityLabel="Back to projects">
              ← Translation
            </Button>
            <Text as="h1" variant="headingLg" truncate>
              {project.name}
            </Text>
            <Badge tone={isProblem(project) ? 'critical' : isFinished(project.status) ? 'success' : working ? 'attention' : 'info'}>
              {projectStatusLabel(project)}
            </Badge>
          </InlineStack>
          <InlineStack gap="200" blockAlign="center">
            <Button onClick={() => void save()} disabled={!unsaved || snap.saving || readOnly} loading={snap.saving} accessibilityLabel="Save changes (Ctrl+S)">
              {localChanges > 0 ? `Save changes (${localChanges})` : 'Saved'}
            </Button>
            <DownloadsMenu
              project={project}
              busy={working}
              canSrt={canSrt}
              canAudio={canAudio}
              canBurn={canBurn}
              onDownload={(t) => void onDownload(t)}
              onBurn={() => void onBurn()}
              onCopy={() => setCopyOpen(true)}
              onFeedback={() => setFeedbackOpen(true)}
            />
            <Button variant="primary" onClick={() => void onGenerate()} disabled={!generateEnabled} loading={generating}>
              Generate video
            </Button>
          </InlineStack>
        </InlineStack>

        {saveErrorAt !== null && (
          <div role="alert" data-testid="segment-save-error">
            <Banner tone="critical" onDismiss={() => setSaveErrorAt(null)}>
              <p>{TEXT.segmentSaveFailed}</p>
            </Banner>
          </div>
        )}
        {notice && (
          <Banner tone="warning" onDismiss={() => setNotice(null)}>
            <p>{notice}</p>
          </Banner>
        )}
        {transcriptError && !transcript && (
          <Banner tone="critical" action={{ content: 'Try again', onAction: () => void reloadTranscript() }}>
            <p>The transcript could not be loaded: {transcriptError.message}</p>
          </Banner>
        )}

        <div className="ed-layout">
          <div className="ed-side">
            <Player
              ref={player}
              originalUrl={project.original_video}
              translatedUrl={project.translated_video}
              lipsyncUrl={project.lipsync_info.lipsync_result_path}
              poster={project.cover}
              tab={tab}
              onTabChange={setTab}
              onTime={onTime}
            />
            <GenerateCard project={project} working={working} localChanges={localChanges} onDownload={() => void onDownload('video')} onStop={() => void onStop()} stopping={stopping} />
            <QualityPanel
              projectId={pid}
              projectName={project.name}
              version={project.translated_audio && isFinished(project.status) ? project.translated_audio : null}
              onOpenSegment={onOpenSegment}
            />
            <RewritePanel
              projectId={pid}
              segment={selectedId ? (segments.find((x) => x.id === selectedId) ?? null) : null}
              access={rewriteAccess}
              readOnly={readOnly}
              onAccept={(id, text) => store.update(id, { dstText: text })}
            />
            <LipsyncPanel
              project={project}
              allowed={canLipsync}
              busy={working || generating}
              onCheckFaces={onCheckFaces}
              onRun={onLipsync}
              onWatch={() => setTab('lipsync')}
              onDownload={() => void onDownload('lipsync')}
              onUpgrade={() => navigate('/pricing?tab=lip_sync')}
            />
            <SpeakersPanel
              speakers={project.speakers}
              voices={voicePool?.voices}
              disabled={readOnly}
              onRename={async (id, name) => mutateProject(await updateSpeakers(pid, [{ id, name }]), { revalidate: false })}
              onVoice={async (id, voiceId) => mutateProject(await updateSpeakers(pid, [{ id, voice_id: voiceId }]), { revalidate: true })}
              onInstantClone={canInstantClone ? async (id) => mutateProject(await instantCloneSpeaker(pid, id), { revalidate: true }) : undefined}
            />
            {canDictionary && (
              <DictionaryPanel project={project} disabled={readOnly} onChanged={(p) => void mutateProject(p, { revalidate: true })} />
            )}
          </div>
          <div className="ed-list">
            <div className="ed-toolbar">
              <Text as="h2" variant="headingSm">
                Transcript
              </Text>
              <Text as="span" tone="subdued" variant="bodySm">
                {segments.length} segments{project.changed_segments > 0 ? ` · ${project.changed_segments} changed` : ''}
              </Text>
              <span className="ed-spacer" />
              <Text as="span" tone="subdued" variant="bodySm">
                Alt+↑/↓ moves between segments
              </Text>
              <Button onClick={onAdd} disabled={readOnly || !loaded}>
                Add segment
              </Button>
            </div>
            {!loaded && !transcriptError ? (
              <div style={{ padding: 16 }}>
                <Text as="p" tone="subdued">
                  Loading the transcript…
                </Text>
              </div>
            ) : (
              <SegmentList
                ref={list}
                segments={segments}
                dirty={snap.dirty}
                selectedId={selectedId}
                activeId={activeId}
                speakers={speakerOptions}
                durationSec={project.duration}
                readOnly={readOnly}
                height={`calc(100vh - ${170 + (canTimeline ? timelineHeight(project.speakers.length, timelineCollapsed) + 16 : 0)}px)`}
                onSelect={onSelect}
                onChange={onChange}
                onInvalid={onInvalid}
                onPlay={onPlay}
                onSplit={onSplit}
                onMergeNext={onMergeNext}
                onDelete={onDelete}
                flags={segmentFlags}
              />
            )}
          </div>
        </div>
        {canTimeline && loaded && (
          <div className="tl-dock">
            <Timeline
              ref={timeline}
              projectId={pid}
              durationSec={project.duration}
              segments={segments}
              speakers={speakerOptions}
              selectedId={selectedId}
              dirty={snap.dirty}
              readOnly={readOnly}
              sourceReady={project.duration != null}
              dubVersion={project.voiceover ?? project.translated_audio}
              collapsed={timelineCollapsed}
              onCollapsedChange={setTimelineCollapsed}
              onSelect={onTimelineSelect}
              onSeek={onTimelineSeek}
              onChange={onTimelineChange}
            />
          </div>
        )}
      </BlockStack>

      <DiscardChangesModal open={guard.open} onCancel={guard.onCancel} onDiscard={guard.onDiscard} />
      <FeedbackModal open={feedbackOpen} onClose={() => setFeedbackOpen(false)} onSubmit={async (v) => {
        await sendFeedback(pid, v);
        toast.show('Thank you for the feedback');
      }} />
      <CopyModal
        open={copyOpen}
        options={dstOptions}
        currentLang={project.dst_lang}
        onClose={() => setCopyOpen(false)}
        onCopy={async (lang) => {
          const copy = await copyProject(pid, lang);
          navigate(`/spaces/${spaceId}/project/${copy.id}`);
          return copy;
        }}
      />
    </div>
  );
}

