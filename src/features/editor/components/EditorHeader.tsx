// The editor's header: back to the projects, the project's name and status, whether the edits are saved, the
// minutes left, the Download menu (with all languages and publishing to a shop's product) and Generate.
import { Badge, Button, Text } from '@shopify/polaris';
import { useState } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import { isFinished, isProblem, projectStatusLabel } from '../../../../contract/statuses';
import { useFeatureAvailable } from '../../../lib/api/use-settings';
import { formatLanguage, formatMinutes } from '../../../lib/format';
import type { MediaType } from '../api';
import { AllLanguagesPlayer, useAllLanguages } from './AllLanguages';
import { DownloadsMenu } from './DownloadsMenu';
import { PublishDialog, usePublishing, type PublishLanguage } from './PublishToProduct';

export function EditorHeader(p: {
  project: Project;
  /** Back to the projects (asks first when edits are unsaved). */
  onBack: () => void;
  saveState: string;
  /** Shows "Save now". */
  canSaveNow: boolean;
  onSave: () => void;
  readOnly: boolean;
  working: boolean;
  minutesLeft: number | null;
  shortOfMinutes: boolean;
  onDownload: (t: MediaType) => void;
  onBurn: () => void;
  onCopy: () => void;
  onFeedback: () => void;
  generateEnabled: boolean;
  generating: boolean;
  onGenerate: () => void;
}) {
  const { project } = p;
  const pid = project.id;
  const canSrt = useFeatureAvailable('srt_download');
  const canAudio = useFeatureAvailable('audio_download');
  const canBurn = useFeatureAvailable('subtitles');
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

  return (
    <div className="ed-header">
      <div className="ed-header-title">
        <Button variant="tertiary" onClick={p.onBack} accessibilityLabel="Back to projects">
          ← Translation
        </Button>
        <Text as="h1" variant="headingLg" truncate>
          {project.name}
        </Text>
        <Badge tone={isProblem(project) ? 'critical' : isFinished(project.status) ? 'success' : p.working ? 'attention' : 'info'}>
          {projectStatusLabel(project)}
        </Badge>
      </div>
      <div className="ed-header-actions">
        <span className="ed-save-state" data-testid="save-state" role="status" data-state={p.saveState}>
          {p.saveState}
        </span>
        {p.canSaveNow ? (
          <Button onClick={p.onSave} disabled={p.readOnly} accessibilityLabel="Save changes (Ctrl+S)">
            Save now
          </Button>
        ) : null}
        {p.minutesLeft !== null ? (
          <span className={`ed-minutes${p.shortOfMinutes ? ' is-short' : ''}`} data-testid="editor-minutes">
            {`${formatMinutes(p.minutesLeft)} left`}
          </span>
        ) : null}
        <DownloadsMenu
          project={project}
          busy={p.working}
          canSrt={canSrt}
          canAudio={canAudio}
          canBurn={canBurn}
          onDownload={p.onDownload}
          onBurn={p.onBurn}
          onCopy={p.onCopy}
          onFeedback={p.onFeedback}
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
        <Button variant="primary" onClick={p.onGenerate} disabled={!p.generateEnabled} loading={p.generating}>
          Generate video
        </Button>
      </div>
    </div>
  );
}
