// Lip-sync in the editor: first the face check (how many faces, how much of the video), then the lip-sync
// of the dubbed video with its progress, failure or result. Shown to every plan; below Creator Pro it offers
// the upgrade (the server refuses the calls for those plans whatever this shows).
import { Badge, Banner, BlockStack, Button, Checkbox, InlineStack, ProgressBar, Spinner, Text, Card } from '@shopify/polaris';
import { useState } from 'react';
import { minutesNeeded } from '../../../../contract/constants';
import type { Project } from '../../../../contract/schemas/project';

export interface LipsyncPanelProps {
  project: Project;
  /** The plan includes lip-sync. */
  allowed: boolean;
  /** The dub is being generated or something else runs. */
  busy: boolean;
  onCheckFaces: () => Promise<void>;
  onRun: (o: { isMultipleSpeakers: boolean }) => Promise<void>;
  onWatch: () => void;
  onDownload: () => void;
  onUpgrade: () => void;
}

export function LipsyncPanel(p: LipsyncPanelProps) {
  const pr = p.project;
  const fc = pr.face_check ?? null;
  const ls = pr.lipsync_info;
  const [multiple, setMultiple] = useState<boolean>(ls.is_multiple_speakers ?? false);
  const [pending, setPending] = useState(false);
  const act = (fn: () => Promise<void>) => async () => {
    setPending(true);
    try {
      await fn();
    } finally {
      setPending(false);
    }
  };
  const hasDub = !!pr.translated_video;
  const running = ls.status === 'processing';
  const checking = fc?.status === 'processing';
  const minutes = minutesNeeded(pr.duration ?? 0);

  let body: JSX.Element;
  if (!p.allowed) {
    body = (
      <BlockStack gap="200">
        <Text as="p" tone="subdued">
          Lip-sync moves the speakers&apos; mouths with the dubbed voices. It is part of Creator Pro and above.
        </Text>
        <InlineStack>
          <Button onClick={p.onUpgrade}>Upgrade for lip-sync</Button>
        </InlineStack>
      </BlockStack>
    );
  } else if (running) {
    body = (
      <BlockStack gap="200">
        <Text as="p" tone="subdued" id="lipsync-progress">
          Moving the mouths with the dub… {ls.progress ?? 0}%
        </Text>
        <ProgressBar progress={ls.progress ?? 0} tone="highlight" size="small" ariaLabelledBy="lipsync-progress" />
      </BlockStack>
    );
  } else if (checking) {
    body = (
      <InlineStack gap="200" blockAlign="center">
        <Spinner size="small" accessibilityLabel="Checking the faces" />
        <Text as="p" tone="subdued">
          Looking for faces in the video…
        </Text>
      </InlineStack>
    );
  } else {
    body = (
      <BlockStack gap="300">
        {ls.status === 'failed' && (
          <Banner tone="critical" title="Lip-sync failed">
            <p>
              {sentence(ls.error ?? 'The lip-sync could not be made')} The minutes of this run were given back; the dubbed video is unchanged.
            </p>
          </Banner>
        )}
        {ls.status === 'done' && ls.lipsync_result_path && (
          <BlockStack gap="200">
            {ls.stale && (
              <Banner tone="warning">
                <p>The dub changed after this lip-sync was made: run it again to follow the new voices.</p>
              </Banner>
            )}
            <InlineStack gap="200" blockAlign="center">
              <Badge tone="success">Lip-synced video ready</Badge>
              <Button variant="plain" onClick={p.onWatch}>
                Watch
              </Button>
              <Button variant="plain" onClick={p.onDownload}>
                Download MP4
              </Button>
            </InlineStack>
          </BlockStack>
        )}
        {!fc && (
          <Text as="p" tone="subdued">
            First we check the faces of the video, so you know what lip-sync can do before spending minutes.
          </Text>
        )}
        {fc?.status === 'failed' && (
          <Text as="p" tone="critical">
            The face check failed{fc.error ? `: ${fc.error}` : ''}.
          </Text>
        )}
        {fc?.status === 'done' && (
          <div data-testid="face-check-result">
            <Banner tone={fc.lipsync_possible ? (fc.multiple_faces ? 'info' : 'success') : 'warning'} title={faceTitle(fc)}>
              <p>{fc.message}</p>
            </Banner>
          </div>
        )}
        {fc?.status === 'done' && fc.lipsync_possible && fc.multiple_faces && (
          <Checkbox
            label="Several people speak on screen"
            helpText="Each speaker's dubbed voice moves the face that speaks it. Leave it off when one person talks to others."
            checked={multiple}
            onChange={setMultiple}
          />
        )}
        <InlineStack gap="200" blockAlign="center">
          <Button onClick={act(p.onCheckFaces)} disabled={p.busy || pending || !pr.original_video} loading={pending && !fc}>
            {fc ? 'Check the faces again' : 'Check the faces'}
          </Button>
          {fc?.status === 'done' && fc.lipsync_possible && (
            <Button
              variant="primary"
              onClick={act(() => p.onRun({ isMultipleSpeakers: fc.multiple_faces && multiple }))}
              disabled={p.busy || pending || !hasDub}
              loading={pending && !!fc}
            >
              {`${ls.status === 'done' ? 'Lip-sync again' : 'Lip-sync the video'} (${minutes} min)`}
            </Button>
          )}
        </InlineStack>
        {fc?.status === 'done' && fc.lipsync_possible && !hasDub && (
          <Text as="p" tone="subdued">
            Generate the dubbed video first: lip-sync follows the dub.
          </Text>
        )}
      </BlockStack>
    );
  }
  return (
    <Card>
      <BlockStack gap="200">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="h2" variant="headingSm">
            Lip-sync
          </Text>
          {running && <Text as="span" tone="subdued">{ls.progress ?? 0}%</Text>}
        </InlineStack>
        {body}
      </BlockStack>
    </Card>
  );
}

function faceTitle(fc: NonNullable<Project['face_check']>): string {
  if (!fc.lipsync_possible) return fc.small_faces ? 'Faces too small' : fc.faces_found === 0 ? 'No face found' : 'Too few frames with a face';
  if (fc.multiple_faces) return `${fc.faces_found} faces on screen`;
  return 'One face found';
}

function sentence(s: string): string {
  const t = s.trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
