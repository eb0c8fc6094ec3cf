// The "Dubbed video" card beside the player: progress while generating, the failure to retry, what Generate
// will do, and the MP4 download once there is a dub.
import { BlockStack, Button, Card, InlineStack, ProgressBar, Text } from '@shopify/polaris';
import type { Project } from '../../../../contract/schemas/project';
import { isCancelled, isGenerating, projectStatusLabel, statusLabel } from '../../../../contract/statuses';
import { generateHint } from '../lib/generate';

export function GenerateCard({ project, working, localChanges, onDownload, onStop, stopping = false }: {
  project: Project;
  working: boolean;
  localChanges: number;
  onDownload: () => void;
  /** Stops the dub being generated (shown while it runs). */
  onStop?: () => void;
  stopping?: boolean;
}) {
  const stopped = project.status === 'voiceover_failed' || project.status === 'merging_failed';
  const cancelled = stopped && isCancelled(project);
  const failed = stopped && !cancelled;
  return (
    <Card>
      <BlockStack gap="200">
        <InlineStack align="space-between" blockAlign="center">
          <Text as="h2" variant="headingSm">
            Dubbed video
          </Text>
          {working && (
            <InlineStack gap="200" blockAlign="center">
              <Text as="span" tone="subdued">{project.progress}%</Text>
              {onStop && isGenerating(project.status) && (
                <Button variant="plain" tone="critical" onClick={onStop} loading={stopping}>
                  Stop
                </Button>
              )}
            </InlineStack>
          )}
          {!working && project.translated_video && (
            <Button variant="plain" onClick={onDownload}>
              Download MP4
            </Button>
          )}
        </InlineStack>
        {working && <ProgressBar progress={project.progress} tone="highlight" size="small" ariaLabelledBy="generate-hint" />}
        <Text as="p" tone={failed ? 'critical' : 'subdued'} id="generate-hint">
          {working ? `${statusLabel(project.status)}: ${project.status.startsWith('merging') ? 'merging audio and video' : 'voicing the segments'}…`
            : cancelled
              ? `${projectStatusLabel(project)}: no minutes were spent. Generate again when you are ready.`
              : failed
                ? `${statusLabel(project.status)}${project.error_message ? `: ${project.error_message}` : ''}. Try again.`
                : generateHint(project, localChanges)}
        </Text>
      </BlockStack>
    </Card>
  );
}
