// Downloads: dubbed video, translated audio, voiceover only, SRT, VTT; burn subtitles on request; copy to
// another language; feedback.
import { ActionList, Button, Popover } from '@shopify/polaris';
import { useState } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import type { MediaType } from '../api';
import { TEXT } from '../../../../contract/errors';
import type { AllLanguagesFormat } from './AllLanguages';
import type { PublishLanguage } from './PublishToProduct';

export interface DownloadsMenuProps {
  project: Project;
  busy: boolean;
  canSrt: boolean;
  canAudio: boolean;
  canBurn: boolean;
  onDownload: (t: MediaType) => void;
  onBurn: () => void;
  onCopy: () => void;
  onFeedback: () => void;
  /** The original project: its video in every finished language (dubbed languages counted). */
  allLanguages?: { dubbed: number; busy: AllLanguagesFormat | null; onPick: (f: AllLanguagesFormat) => void };
  /** In a shop's Teamspace: "Publish to product", one item per dubbed language (issue 32, part 4). */
  publish?: { languages: PublishLanguage[]; onPick: (l: PublishLanguage) => void };
}

const ALL_LANGUAGES: Array<[AllLanguagesFormat, string]> = [
  ['mp4', 'All languages (MP4)'], ['mkv', 'All languages (MKV)'], ['hls', 'All languages (HLS player)'],
];

export const DOWNLOAD_LABELS: Record<MediaType, string> = {
  video: 'Dubbed video (MP4)',
  audio: 'Translated audio',
  voiceover: 'Voiceover only',
  srt: 'Subtitles (SRT)',
  vtt: 'Subtitles (VTT)',
  original: 'Original video',
  lipsync: 'Lip-synced video (MP4)',
  lipsync_subtitles: 'Lip-synced video with subtitles',
};

export function DownloadsMenu(p: DownloadsMenuProps) {
  const [open, setOpen] = useState(false);
  const pr = p.project;
  const burn = pr.subtitles_burn_state ?? null;
  const burned = pr.subtitles_info.subtitles_burn_result_path;
  const item = (t: MediaType, available: boolean, allowed = true) => ({
    content: DOWNLOAD_LABELS[t],
    disabled: p.busy || !available || !allowed,
    helpText: !allowed ? 'Not in your plan' : !available ? 'Generate the video first' : undefined,
    onAction: () => p.onDownload(t),
  });
  return (
    <Popover
      active={open}
      onClose={() => setOpen(false)}
      preferredAlignment="right"
      activator={
        <Button disclosure onClick={() => setOpen((o) => !o)} accessibilityLabel="Downloads and more">
          Download
        </Button>
      }
    >
      <ActionList
        actionRole="menuitem"
        onActionAnyItem={() => setOpen(false)}
        sections={[
          {
            title: 'Download',
            items: [
              item('video', !!pr.translated_video),
              item('audio', !!pr.translated_audio, p.canAudio),
              item('voiceover', !!pr.voiceover, p.canAudio),
              item('srt', !!pr.translation_srt_path, p.canSrt),
              item('vtt', !!pr.translation_vtt_path, p.canSrt),
              item('original', !!pr.original_video),
              ...(pr.lipsync_info.lipsync_result_path ? [item('lipsync', true)] : []),
              ...(pr.subtitles_info.subtitles_lipsync_burn_result_path ? [item('lipsync_subtitles', true)] : []),
            ],
          },
          ...(p.allLanguages
            ? [{
              title: 'All languages',
              items: ALL_LANGUAGES.map(([f, label]) => ({
                content: p.allLanguages!.busy === f ? `${label}…` : label,
                disabled: p.busy || p.allLanguages!.busy !== null || p.allLanguages!.dubbed === 0,
                helpText: p.allLanguages!.dubbed === 0 ? TEXT.allLanguagesNone : undefined,
                onAction: () => p.allLanguages!.onPick(f),
              })),
            }]
            : []),
          ...(p.publish
            ? [{
              title: 'Your store',
              items: p.publish.languages.length === 0
                ? [{ content: 'Publish to product', disabled: true, helpText: 'Generate the video first' }]
                : p.publish.languages.map((l) => ({
                  content: p.publish!.languages.length > 1 ? `Publish to product (${l.name})` : 'Publish to product',
                  disabled: p.busy,
                  onAction: () => p.publish!.onPick(l),
                })),
            }]
            : []),
          {
            title: 'Subtitles',
            items: [
              burned && burn !== 'processing'
                ? { content: 'Video with subtitles', url: burned, external: true }
                : null,
              {
                content: burn === 'processing' ? 'Burning subtitles…' : burned ? 'Burn subtitles again' : 'Burn subtitles into the video',
                disabled: p.busy || burn === 'processing' || !pr.translated_video || !p.canBurn,
                helpText: burn === 'failed' ? pr.subtitles_burn_error ?? 'The last attempt failed' : !p.canBurn ? 'Not in your plan' : undefined,
                onAction: p.onBurn,
              },
            ].filter((x): x is NonNullable<typeof x> => x !== null),
          },
          {
            title: 'More',
            items: [
              { content: 'Copy to another language', disabled: p.busy, onAction: p.onCopy },
              { content: 'Report a problem', onAction: p.onFeedback },
            ],
          },
        ]}
      />
    </Popover>
  );
}
