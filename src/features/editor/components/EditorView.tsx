// The editor: player, speakers, segment list, generate, downloads, feedback. Edits save themselves shortly after
// typing stops (autosaveTiming; the spec's save-failure behaviour when a save fails); the minutes left are in the
// header, Generate says what it will spend and, without enough minutes, why it cannot run (with a way to get
// more, in place).
import { Badge, Banner, BlockStack, Button, Modal, Text } from '@shopify/polaris';
import { useAtomValue, useSetAtom } from 'jotai';
import { useCallback, useDeferredValue, useEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import type { KeyedMutator } from 'swr';
import { useLocation } from 'wouter';
import { SEGMENT_SAVE_ERROR_MS, minutesNeeded } from '../../../../contract/constants';
import { TEXT } from '../../../../contract/errors';
import type { Project, Segment } from '../../../../contract/schemas/project';
import { isFinished, isProblem, projectStatusLabel } from '../../../../contract/statuses';
import { useFeature, useFeatureAvailable, useSettings } from '../../../lib/api/use-settings';
import { useCredits } from '../../../lib/api/use-credits';
import { useCurrentUser } from '../../../lib/api/use-current-user';
import { formatLanguage, formatMinutes, languagePickerLabel } from '../../../lib/format';
import { deviceTypeAtom, getMoreMinutesAtom } from '../../../lib/state';
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
import { AllLanguagesPlayer, useAllLanguages } from './AllLanguages';
import { PublishDialog, usePublishing, type PublishLanguage } from './PublishToProduct';
import { FeedbackModal } from '../../../ui/feedback-modal';
import { LipsyncPanel } from './LipsyncPanel';
import { QualityPanel } from './QualityPanel';
import { useSegmentFlags } from './SegmentFlags';
import { RewritePanel, type RewriteAccess } from './RewritePanel';
import { Player, type PlayerHandle, type PlayerTab } from './Player';
import { SegmentList, type SegmentListHandle } from './SegmentList';
import { TimingSummary, useDubTiming } from './TimingSummary';
import { SpeakersPanel } from './SpeakersPanel';
import { keepInCast, undoCastRecognition, useCastRecognitions } from '../hooks/useCast';
import { GenerateCard } from './GenerateCard';
import { useProjectActions } from '../hooks/useProjectActions';
import { DictionaryPanel } from './DictionaryPanel';
import { AsrWordsPanel } from './AsrWordsPanel';
import { Timeline, type TimelineHandle } from '../timeline/Timeline';

export const TRANSCRIPT_POLL_MS = 2000;
/** Edits are saved this long after the last keystroke (tests that drive saving by hand lengthen it). */
export const autosaveTiming = { delayMs: 1200 };

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
  const segmentFlags = useSegmentFlags(pid, project.translated_audio && isFinished(project.status) ? project.translated_audio : null);
  const dubTiming = useDubTiming(pid, project.translated_audio && isFinished(project.status) ? project.translated_audio : null);
  const [store] = useState(() => new TranscriptStore());
  const snap = useSyncExternalStore(store.subscribe, store.getSnapshot);
  const segments = snap.segments;
  // The timeline (canvases redrawn on each render) follows the segments in a deferred render: a keystroke in a
  // translation paints first, the timeline catches up right after (INP with hundreds of segments).
  const timelineSegments = useDeferredValue(segments);
  const timelineDirty = useDeferredValue(snap.dirty);
  const anyProcessing = segments.some((s) => s.status === 'processing');
  const { data: transcript, error: transcriptError, mutate: reloadTranscript } = useTranscript(pid, anyProcessing ? TRANSCRIPT_POLL_MS : 0);
  const { data: voicePool } = useVoicePool(pid);
  const { settings } = useSettings();
  const canSrt = useFeatureAvailable('srt_download');
  const canAudio = useFeatureAvailable('audio_download');
  const canInstantClone = useFeatureAvailable('instant_voice_preset');
  const canCast = useFeatureAvailable('voice_presets');
  const { data: castRecognitions } = useCastRecognitions(spaceId, project.id, canCast);
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
  const { data: credits, mutate: reloadCredits } = useCredits(spaceId);
  const { data: me } = useCurrentUser();
  const openMoreMinutes = useSetAtom(getMoreMinutesAtom);
  const device = useAtomValue(deviceTypeAtom);
  const [confirmGenerate, setConfirmGenerate] = useState(false);

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

  const save = useCallback(async (o: { auto?: boolean } = {}): Promise<boolean> => {
    if (invalid.size > 0) {
      // An autosave waits for the field to be fixed; an explicit save shows where.
      if (!o.auto) list.current?.focus([...invalid][0]);
      return false;
    }
    if (!store.hasUnsaved()) return true;
    // Segments of the same speaker may not overlap (the server refuses them): fix first.
    const snapNow = store.getSnapshot();
    const overlapping = snapNow.segments.find((s) => snapNow.dirty.has(s.id) && s.overlappedTimestamps?.length);
    if (overlapping) {
      setNotice('Segments of the same speaker overlap: fix the start and end times before saving.');
      if (!o.auto) list.current?.focus(overlapping.id);
      return false;
    }
    if (!o.auto) setNotice(null);
    const r = await store.flush((chunk) => patchSegments(pid, chunk));
    void mutateProject();
    if (r.failed.length > 0) {
      showSaveError();
      return false;
    }
    return true;
  }, [invalid, store, pid, mutateProject, showSaveError]);

  const guard = useLeaveGuard(
    unsaved,
    () => {
      store.discard();
      setInvalid(new Set());
    },
    () => save(),
  );

  // Autosave: autosaveTiming.delayMs after the last edit (each edit restarts the wait), segment by segment (only the
  // changed ones are sent). A failed save shows the spec's message and restores the server copy.
  const dirtyKey = useMemo(() => [...snap.dirty].sort().join(','), [snap.dirty]);
  useEffect(() => {
    if (!dirtyKey || invalid.size > 0 || snap.saving) return;
    const t = setTimeout(() => void save({ auto: true }), autosaveTiming.delayMs);
    return () => clearTimeout(t);
  }, [dirtyKey, segments, invalid, snap.saving, save]);

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

  const { generating, onGenerate, onDownload, onBurn, onCheckFaces, onLipsync, stopping, onStop } = useProjectActions(pid, mutateProject, () => save());
  // The original project's video in every finished language (issue 31).
  const isOriginal = !project.copied_from;
  const all = useAllLanguages(pid, isOriginal, `${project.status}:${project.translated_audio ?? ''}`);
  // In a shop's Teamspace: each dubbed language can go to a product of the shop (issue 32, part 4).
  const publishing = usePublishing(pid);
  const [publishLang, setPublishLang] = useState<PublishLanguage | null>(null);
  // This project's own language, and on the original every other finished language of the video.
  const publishLanguages: PublishLanguage[] = [
    ...(project.translated_video ? [{ lang: project.dst_lang, name: formatLanguage(project.dst_lang) }] : []),
    ...(isOriginal ? (all.languages ?? []).filter((l) => !l.original && l.lang !== project.dst_lang).map((l) => ({ lang: l.lang, name: l.name })) : []),
  ];
  // What a generation or lip-sync spent shows at once in the header.
  useEffect(() => {
    void reloadCredits();
  }, [project.status, project.lipsync_info.status, reloadCredits]);
  const readOnly = isBusy(project.status) || generating;
  // A timing fix saved a segment (shorten, borrow the pause, keep the original): take the server's copy.
  const onServerSegment = useCallback(
    (s: Segment) => {
      store.accept(s);
      void mutateProject();
    },
    [store, mutateProject],
  );

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
  const minutesLeft = credits ? Math.max(0, credits.minutes.total - credits.minutes.used) : null;
  const cost = generateCost(project, segments, snap.dirty, (i) => segments[i].id);
  const shortOfMinutes = minutesLeft !== null && cost > minutesLeft;
  const generateEnabled = canGenerate(project, localChanges) && !generating && loaded && !shortOfMinutes;
  const saveState = snap.saving ? 'Saving…' : saveErrorAt !== null ? 'Not saved' : unsaved ? 'Unsaved changes' : 'Saved';
  const working = isBusy(project.status);
  const dstOptions = useMemo(
    () => [...(settings?.languages.translation ?? [])].sort((a, b) => a.id - b.id).map((l) => ({ label: languagePickerLabel(l.value, l.label), value: l.value, ...(l.variant_note ? { note: l.variant_note } : {}) })),
    [settings],
  );

  return (
    <div className="ed-page" style={{ padding: 'var(--p-space-400)' }}>
      <BlockStack gap="400">
        <div className="ed-header">
          <div className="ed-header-title">
            <Button variant="tertiary" onClick={() => guard.confirmThen(() => navigate(`/spaces/${spaceId}`))} accessibilityLabel="Back to projects">
              ← Translation
            </Button>
            <Text as="h1" variant="headingLg" truncate>
              {project.name}
            </Text>
            <Badge tone={isProblem(project) ? 'critical' : isFinished(project.status) ? 'success' : working ? 'attention' : 'info'}>
              {projectStatusLabel(project)}
            </Badge>
          </div>
          <div className="ed-header-actions">
            <span className="ed-save-state" data-testid="save-state" role="status" data-state={saveState}>
              {saveState}
            </span>
            {unsaved && !snap.saving ? (
              <Button onClick={() => void save()} disabled={readOnly} accessibilityLabel="Save changes (Ctrl+S)">
                Save now
              </Button>
            ) : null}
            {minutesLeft !== null ? (
              <span className={`ed-minutes${shortOfMinutes ? ' is-short' : ''}`} data-testid="editor-minutes">
                {`${formatMinutes(minutesLeft)} left`}
              </span>
            ) : null}
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
              allLanguages={isOriginal ? { dubbed: Math.max(0, (all.languages?.length ?? 0) - 1), busy: all.busy, onPick: (f) => void all.run(f) } : undefined}
              publish={publishing.data?.shop ? { languages: publishLanguages, onPick: setPublishLang } : undefined}
            />
            {publishLang && publishing.data ? (
              <PublishDialog
                projectId={pid}
                spaceId={project.space_id}
                language={publishLang}
                data={publishing.data}
                onClose={() => setPublishLang(null)}
                onChanged={publishing.reload}
              />
            ) : null}
            {all.hlsUrl ? <AllLanguagesPlayer url={all.hlsUrl} languages={all.languages ?? []} onClose={all.closeHls} /> : null}
            <Button variant="primary" onClick={() => setConfirmGenerate(true)} disabled={!generateEnabled} loading={generating}>
              Generate video
            </Button>
          </div>
        </div>
        {shortOfMinutes && canGenerate(project, localChanges) ? (
          <div role="status">
            <Banner tone="warning" title="Not enough minutes to generate" action={{ content: 'Buy minutes', onAction: () => openMoreMinutes(true) }}>
              <p>{`Generating uses ${formatMinutes(cost)}; ${formatMinutes(minutesLeft ?? 0)} left. Your edits are kept.`}</p>
            </Banner>
          </div>
        ) : null}

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
            <div data-card="player">
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
            </div>
            <div data-card="speakers">
              <SpeakersPanel
                speakers={project.speakers}
                voices={voicePool?.voices}
                disabled={readOnly}
                onRename={async (id, name) => mutateProject(await updateSpeakers(pid, [{ id, name }]), { revalidate: false })}
                onVoice={async (id, voiceId) => mutateProject(await updateSpeakers(pid, [{ id, voice_id: voiceId }]), { revalidate: true })}
                onInstantClone={canInstantClone ? async (id) => mutateProject(await instantCloneSpeaker(pid, id), { revalidate: true }) : undefined}
                cast={canCast ? {
                  recognised: Object.fromEntries((castRecognitions ?? []).map((r) => [r.speaker_id, r.member_name])),
                  onUndo: async (id) => {
                    await undoCastRecognition(spaceId, pid, id);
                    await mutateProject();
                  },
                  onKeep: (id) => keepInCast(spaceId, pid, id),
                } : undefined}
              />
            </div>
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
              staff={me?.is_superuser === true}
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
            {canDictionary && (
              <DictionaryPanel project={project} disabled={readOnly} onChanged={(p) => void mutateProject(p, { revalidate: true })} />
            )}
            <AsrWordsPanel projectId={pid} disabled={readOnly} />
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
            {loaded ? <TimingSummary segments={segments} timing={dubTiming} /> : null}
            {!loaded && !transcriptError ? (
              <div style={{ padding: 16 }}>
                <Text as="p" tone="subdued">
                  Loading the transcript…
                </Text>
              </div>
            ) : (
              <SegmentList
                ref={list}
                narrow={device === 'mobile'}
                segments={segments}
                dirty={snap.dirty}
                selectedId={selectedId}
                activeId={activeId}
                speakers={speakerOptions}
                durationSec={project.duration}
                readOnly={readOnly}
                height="max(360px, calc(100vh - 200px))"
                onSelect={onSelect}
                onChange={onChange}
                onInvalid={onInvalid}
                onPlay={onPlay}
                onSplit={onSplit}
                onMergeNext={onMergeNext}
                onDelete={onDelete}
                flags={segmentFlags}
                projectId={pid}
                drift={dubTiming?.drift}
                onServerSegment={onServerSegment}
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
              segments={timelineSegments}
              speakers={speakerOptions}
              selectedId={selectedId}
              dirty={timelineDirty}
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

      <DiscardChangesModal open={guard.open} onCancel={guard.onCancel} onDiscard={guard.onDiscard} onSave={guard.onSaveAndLeave} />
      <Modal
        open={confirmGenerate}
        onClose={() => setConfirmGenerate(false)}
        title="Generate the dubbed video?"
        primaryAction={{ content: 'Generate', onAction: () => { setConfirmGenerate(false); void onGenerate(); } }}
        secondaryActions={[{ content: 'Cancel', onAction: () => setConfirmGenerate(false) }]}
      >
        <Modal.Section>
          <Text as="p">
            {cost > 0
              ? `This uses ${formatMinutes(cost)}${minutesLeft !== null ? ` of your ${formatMinutes(minutesLeft)}` : ''}.`
              : 'This uses no minutes.'}
          </Text>
        </Modal.Section>
      </Modal>
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

