// The editor's side column: the player, the speakers and their voices, Generate, the quality report, AI rewrite,
// lip-sync, the dictionary and the words recognition listens for.
import type { RefObject } from 'react';
import type { KeyedMutator } from 'swr';
import { useLocation } from 'wouter';
import type { Project } from '../../../../contract/schemas/project';
import { isFinished } from '../../../../contract/statuses';
import { useCurrentUser } from '../../../lib/api/use-current-user';
import { useFeature, useFeatureAvailable } from '../../../lib/api/use-settings';
import { instantCloneSpeaker, updateSpeakers, useVoicePool } from '../api';
import { keepInCast, undoCastRecognition, useCastRecognitions } from '../hooks/useCast';
import type { useProjectActions } from '../hooks/useProjectActions';
import type { EditorSegment } from '../lib/segments';
import { AsrWordsPanel } from './AsrWordsPanel';
import { DictionaryPanel } from './DictionaryPanel';
import { GenerateCard } from './GenerateCard';
import { LipsyncPanel } from './LipsyncPanel';
import { Player, type PlayerHandle, type PlayerTab } from './Player';
import { QualityPanel } from './QualityPanel';
import { RewritePanel, type RewriteAccess } from './RewritePanel';
import { SpeakersPanel } from './SpeakersPanel';

export function EditorSidePanels(p: {
  project: Project;
  spaceId: string;
  mutateProject: KeyedMutator<Project>;
  player: RefObject<PlayerHandle>;
  tab: PlayerTab;
  onTabChange: (tab: PlayerTab) => void;
  onTime: (t: number, playing: boolean) => void;
  readOnly: boolean;
  working: boolean;
  localChanges: number;
  actions: ReturnType<typeof useProjectActions>;
  /** The selected segment (AI rewrite works on it). */
  selected: EditorSegment | null;
  onOpenSegment: (id: string) => void;
  onAcceptRewrite: (id: string, text: string) => void;
}) {
  const { project, spaceId, mutateProject, readOnly, working, actions } = p;
  const pid = project.id;
  const [, navigate] = useLocation();
  const { data: voicePool } = useVoicePool(pid);
  const canInstantClone = useFeatureAvailable('instant_voice_preset');
  const canCast = useFeatureAvailable('voice_presets');
  const { data: castRecognitions } = useCastRecognitions(spaceId, project.id, canCast);
  const canLipsync = useFeatureAvailable('lipsync');
  const canDictionary = useFeatureAvailable('glossary');
  const rewriteFeature = useFeature('ai_rewrite');
  const canRewrite = useFeatureAvailable('ai_rewrite');
  const rewriteAccess: RewriteAccess = canRewrite
    ? 'on'
    : rewriteFeature?.metadata.not_configured
      ? 'not_configured'
      : rewriteFeature?.visible
        ? 'locked'
        : 'hidden';
  const { data: me } = useCurrentUser();

  return (
    <div className="ed-side">
      <div data-card="player">
      <Player
        ref={p.player}
        originalUrl={project.original_video}
        translatedUrl={project.translated_video}
        lipsyncUrl={project.lipsync_info.lipsync_result_path}
        poster={project.cover}
        tab={p.tab}
        onTabChange={p.onTabChange}
        onTime={p.onTime}
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
      <GenerateCard
        project={project} working={working} localChanges={p.localChanges} onDownload={() => void actions.onDownload('video')} onStop={() => void actions.onStop()} stopping={actions.stopping}
      />
      <QualityPanel
        projectId={pid}
        projectName={project.name}
        version={project.translated_audio && isFinished(project.status) ? project.translated_audio : null}
        onOpenSegment={p.onOpenSegment}
      />
      <RewritePanel
        projectId={pid}
        segment={p.selected}
        access={rewriteAccess}
        readOnly={readOnly}
        onAccept={p.onAcceptRewrite}
        staff={me?.is_superuser === true}
      />
      <LipsyncPanel
        project={project}
        allowed={canLipsync}
        busy={working || actions.generating}
        onCheckFaces={actions.onCheckFaces}
        onRun={actions.onLipsync}
        onWatch={() => p.onTabChange('lipsync')}
        onDownload={() => void actions.onDownload('lipsync')}
        onUpgrade={() => navigate('/pricing?tab=lip_sync')}
      />
      {canDictionary && (
        <DictionaryPanel project={project} disabled={readOnly} onChanged={(pr) => void mutateProject(pr, { revalidate: true })} />
      )}
      <AsrWordsPanel projectId={pid} disabled={readOnly} />
    </div>
  );
}
