// One project of the translation list: cover, name, status label, progress while working, created date,
// and the card actions (rename, move to folder, delete).
import { ActionList, Badge, BlockStack, Button, Card, InlineStack, Popover, ProgressBar, Text } from '@shopify/polaris';
import { memo, useState } from 'react';
import { Link } from 'wouter';
import type { Project } from '../../../../contract/schemas/project';
import { isCancelled, isEditable, isFailure, isFinished, isProblem, projectStatusLabel, type ProjectStatus } from '../../../../contract/statuses';
import { isWorking } from '../../../../contract/statuses';
import { createdDateLabel } from '../lib/dates';

export type CardAction = 'rename' | 'move' | 'delete' | 'feedback';

export function statusTone(s: ProjectStatus, cancelled = false): 'critical' | 'success' | 'info' | 'attention' | undefined {
  if (cancelled) return undefined;
  if (isFailure(s)) return 'critical';
  if (isFinished(s)) return 'success';
  if (isEditable(s)) return 'info';
  return 'attention';
}

export function labelVariantOf(p: Pick<Project, 'src_srt_uploaded'>) {
  return p.src_srt_uploaded ? ('srt' as const) : ('default' as const);
}

export const ProjectCard = memo(function ProjectCard({
  project,
  href,
  now,
  onAction,
  parentName = null,
}: {
  project: Project;
  href: string;
  now: Date;
  onAction: (a: CardAction, p: Project) => void;
  /** Listed under this source project (another language of the same video). */
  parentName?: string | null;
}) {
  const pending = project.pending_dst_langs ?? [];
  const [menu, setMenu] = useState(false);
  const working = isWorking(project.status, project.error_code);
  const label = projectStatusLabel(project, labelVariantOf(project));
  const cancelled = isCancelled(project);
  const problem = isProblem(project);
  return (
    <div className="pj-card" data-testid="project-card" data-project-id={project.id}>
      <Card padding="0">
        <Link href={href} className="pj-cover" aria-label={`Open ${project.name}`} tabIndex={-1}>
          {project.cover ? <img src={project.cover} alt="" loading="lazy" /> : <div className="pj-cover-empty" aria-hidden>▶</div>}
        </Link>
        <div className="pj-body">
          <InlineStack align="space-between" blockAlign="center" wrap={false} gap="200">
            <div style={{ minWidth: 0, flex: 1 }}>
              <Link href={href} className="pj-name" title={project.name}>
                {project.name}
              </Link>
            </div>
            <Popover
              active={menu}
              onClose={() => setMenu(false)}
              activator={
                <Button variant="tertiary" accessibilityLabel={`Actions for ${project.name}`} onClick={() => setMenu((m) => !m)} disclosure>
                  More
                </Button>
              }
            >
              <ActionList
                actionRole="menuitem"
                onActionAnyItem={() => setMenu(false)}
                items={[
                  ...(problem ? [{ content: 'Report a problem', onAction: () => onAction('feedback', project) }] : []),
                  { content: 'Rename', onAction: () => onAction('rename', project) },
                  { content: 'Move to folder', onAction: () => onAction('move', project) },
                  { content: 'Delete', destructive: true, onAction: () => onAction('delete', project) },
                ]}
              />
            </Popover>
          </InlineStack>
          <BlockStack gap="150">
            <InlineStack gap="200" blockAlign="center" wrap>
              <Badge tone="new">{`${project.src_lang.toUpperCase()} → ${project.dst_lang.toUpperCase()}`}</Badge>
              <Badge tone={statusTone(project.status, cancelled)} progress={working ? 'partiallyComplete' : isFinished(project.status) ? 'complete' : undefined}>
                {label}
              </Badge>
              <Text as="span" variant="bodySm" tone="subdued">
                {createdDateLabel(project.created_date, now)}
              </Text>
            </InlineStack>
            {parentName && (
              <Text as="p" variant="bodySm" tone="subdued" truncate>
                Another language of “{parentName}”
              </Text>
            )}
            {pending.length > 0 && (
              <Text as="p" variant="bodySm" tone="subdued">
                {`${pending.map((l) => l.toUpperCase()).join(', ')}: starts when this video's speakers are ready`}
              </Text>
            )}
            {working && (
              <ProgressBar progress={project.progress} size="small" tone="highlight" ariaLabelledBy={`progress-${project.id}`} />
            )}
            {working && (
              <Text as="span" variant="bodySm" tone="subdued" id={`progress-${project.id}`}>
                {project.progress}%
              </Text>
            )}
            {problem && project.error_message && (
              <Text as="p" variant="bodySm" tone="critical" truncate>
                {project.error_message}
              </Text>
            )}
            {problem && (
              <div>
                <Button variant="plain" onClick={() => onAction('feedback', project)} accessibilityLabel={`What went wrong with ${project.name}?`}>
                  What went wrong?
                </Button>
              </div>
            )}
          </BlockStack>
        </div>
      </Card>
    </div>
  );
});
