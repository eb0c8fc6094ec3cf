// The project page (/spaces/{spaceId}/project/{projectId}): live status and progress until the transcript
// is ready, then the editor.
import { Badge, BlockStack, Box, Button, Card, InlineStack, ProgressBar, SkeletonBodyText, SkeletonDisplayText, Text } from '@shopify/polaris';
import { useState } from 'react';
import type { KeyedMutator } from 'swr';
import { useLocation, useParams } from 'wouter';
import type { Project } from '../../../../contract/schemas/project';
import { isCancelled, isEditable, isFailure, projectStatusLabel } from '../../../../contract/statuses';
import { errorMessage, isApiError } from '../../../lib/http';
import { useToast } from '../../../ui/toasts';
import { cancelRun, restartAnalysis } from '../api';
import { PageFrame } from '../../../ui/page';
import { useProject } from '../../../lib/api/use-project';
import { isPreparing } from '../lib/generate';
import { EditorView } from './EditorView';
import './editor.css';

export function ProjectEditor() {
  const { spaceId, projectId } = useParams<{ spaceId: string; projectId: string }>();
  const { data: project, error, mutate } = useProject(projectId);
  const [, navigate] = useLocation();
  const home = `/spaces/${spaceId}`;

  if (!project) {
    if (error) {
      const notFound = isApiError(error) && (error.status === 404 || error.status === 422);
      return (
        <PageFrame title={notFound ? 'Project not found' : 'The project could not be loaded'} backAction={{ content: 'Translation', onAction: () => navigate(home) }}>
          <Card>
            <BlockStack gap="300">
              <Text as="p">{notFound ? 'It may have been deleted, or the link is wrong.' : error.message}</Text>
              <InlineStack gap="200">
                <Button onClick={() => navigate(home)}>Back to projects</Button>
                {!notFound && <Button onClick={() => void mutate()}>Try again</Button>}
              </InlineStack>
            </BlockStack>
          </Card>
        </PageFrame>
      );
    }
    return (
      <PageFrame title="Loading project…">
        <Card>
          <BlockStack gap="300">
            <SkeletonDisplayText size="small" />
            <SkeletonBodyText lines={6} />
          </BlockStack>
        </Card>
      </PageFrame>
    );
  }

  if (isPreparing(project.status) || (isFailure(project.status) && !isEditable(project.status))) {
    return <ProcessingView project={project} onBack={() => navigate(home)} mutateProject={mutate} />;
  }
  return <EditorView key={project.id} project={project} spaceId={spaceId} mutateProject={mutate} />;
}

export function ProcessingView({ project, onBack, mutateProject }: { project: Project; onBack: () => void; mutateProject?: KeyedMutator<Project> }) {
  const toast = useToast();
  const [busy, setBusy] = useState<'stop' | 'restart' | null>(null);
  const act = async (what: 'stop' | 'restart') => {
    setBusy(what);
    try {
      const p = what === 'stop' ? await cancelRun(project.id) : await restartAnalysis(project.id);
      await mutateProject?.(p, { revalidate: true });
    } catch (e) {
      toast.show(errorMessage(e), { error: true });
    } finally {
      setBusy(null);
    }
  };
  const failed = isFailure(project.status);
  const cancelled = isCancelled(project);
  const label = projectStatusLabel(project, project.src_srt_uploaded ? 'srt' : 'default');
  return (
    <PageFrame title={project.name} backAction={{ content: 'Translation', onAction: onBack }}>
      <Card>
        <BlockStack gap="400">
          {project.cover && <img className="ed-cover" src={project.cover} alt="" style={{ maxWidth: 480, borderRadius: 8 }} />}
          <InlineStack gap="200" blockAlign="center">
            <Badge tone={cancelled ? undefined : failed ? 'critical' : 'attention'} progress={failed ? undefined : 'partiallyComplete'}>
              {label}
            </Badge>
            {!failed && (
              <Text as="span" tone="subdued">
                {project.progress}%
              </Text>
            )}
          </InlineStack>
          {!failed && (
            <Box maxWidth="480px">
              <ProgressBar progress={project.progress} tone="highlight" ariaLabelledBy="project-progress-note" />
            </Box>
          )}
          <div id="project-progress-note" role="status" aria-live="polite">
            <Text as="p" tone={failed && !cancelled ? 'critical' : 'subdued'}>
              {cancelled
                ? 'You stopped the analysis of this video. Start it again from where it stopped, or go back to your projects.'
                : failed
                ? project.error_message ?? 'Something went wrong while preparing this video.'
                : 'We are transcribing and translating your video. The editor opens here when the transcript is ready; you can leave this page meanwhile.'}
            </Text>
          </div>
          {failed ? (
            <InlineStack gap="200">
              {cancelled && (
                <Button variant="primary" onClick={() => void act('restart')} loading={busy === 'restart'}>
                  Start again
                </Button>
              )}
              <Button onClick={onBack}>Back to projects</Button>
            </InlineStack>
          ) : (
            <InlineStack>
              <Button tone="critical" variant="plain" onClick={() => void act('stop')} loading={busy === 'stop'}>
                Stop processing
              </Button>
            </InlineStack>
          )}
        </BlockStack>
      </Card>
    </PageFrame>
  );
}
