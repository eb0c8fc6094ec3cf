// The paginated project grid shared by the space home and folder pages: 24 a page (query page and
// searchText), newest first, card actions, empty states.
import { BlockStack, Card, EmptySearchResult, InlineStack, Pagination, SkeletonBodyText, SkeletonThumbnail, Text } from '@shopify/polaris';
import { useMemo, useState } from 'react';
import type { Project } from '../../../../contract/schemas/project';
import { EmptyStateCard } from '../../../ui/page';
import { deleteProject, moveProject, renameProject, sendProjectFeedback, useFolders, useProjectList, useRevalidateLists } from '../api';
import { pageCount } from '../lib/paging';
import { groupLanguages } from '../lib/grouping';
import { ProjectCard, type CardAction } from './ProjectCard';
import { DeleteModal, MoveModal, RenameModal } from './ProjectModals';
import { FeedbackModal } from '../../../ui/feedback-modal';
import { useToast } from '../../../ui/toasts';
import './projects.css';

export interface ProjectGridProps {
  spaceId: string;
  page: number;
  searchText: string;
  folderId?: string | null;
  onPage: (page: number) => void;
  onCreate?: () => void;
  projectHref: (p: Project) => string;
}

export function ProjectGrid({ spaceId, page, searchText, folderId, onPage, onCreate, projectHref }: ProjectGridProps) {
  const { data, error, isLoading, mutate: refresh } = useProjectList({ spaceId, page, searchText, folderId });
  const { data: folders } = useFolders(spaceId);
  const [renaming, setRenaming] = useState<Project | null>(null);
  const [moving, setMoving] = useState<Project | null>(null);
  const [deleting, setDeleting] = useState<Project | null>(null);
  const [feedbackFor, setFeedbackFor] = useState<Project | null>(null);
  const toast = useToast();
  // 'now' for the relative dates, taken again whenever the list refreshes.
  // eslint-disable-next-line react-hooks/exhaustive-deps
  const now = useMemo(() => new Date(), [data]);

  const onAction = (a: CardAction, p: Project) => {
    if (a === 'feedback') setFeedbackFor(p);
    else if (a === 'rename') setRenaming(p);
    else if (a === 'move') setMoving(p);
    else setDeleting(p);
  };
  const revalidate = useRevalidateLists();
  const afterChange = () => revalidate();

  // Folder pages show only that folder's projects even if the server ignores the filter.
  const projects = (data?.data ?? []).filter((p) => !folderId || p.folder_id === folderId);
  const total = data?.total ?? 0;
  const pages = pageCount(total);

  let body;
  if (error && !data) {
    body = (
      <Card>
        <Text as="p" tone="critical">
          {error.message || 'The projects could not be loaded'}
        </Text>
      </Card>
    );
  } else if (isLoading && !data) {
    body = (
      <div className="pj-grid" aria-busy="true" aria-label="Loading projects">
        {Array.from({ length: 8 }, (_, i) => (
          <Card key={i}>
            <BlockStack gap="200">
              <SkeletonThumbnail size="large" />
              <SkeletonBodyText lines={2} />
            </BlockStack>
          </Card>
        ))}
      </div>
    );
  } else if (projects.length === 0) {
    body = searchText.trim() ? (
      <Card>
        <EmptySearchResult title="No projects found" description={`Nothing matches “${searchText.trim()}”. Try another name.`} withIllustration />
      </Card>
    ) : folderId ? (
      <EmptyStateCard heading="This folder is empty">
        <p>Move projects here with “Move to folder” on a project card.</p>
      </EmptyStateCard>
    ) : (
      <EmptyStateCard heading="Translate your first video" action={onCreate ? { content: 'Translate video', onAction: onCreate } : undefined}>
        <p>Upload a video or paste a link: it is transcribed, translated and dubbed with voices that sound like the speakers.</p>
      </EmptyStateCard>
    );
  } else {
    body = (
      <div className="pj-grid" role="list" aria-label="Projects">
        {groupLanguages(projects).map(({ project: p, parent }) => (
          <div role="listitem" key={p.id} className={parent ? 'pj-child' : undefined} aria-label={parent ? `${p.name}: ${p.dst_lang.toUpperCase()} version of ${parent.name}` : undefined}>
            <ProjectCard project={p} href={projectHref(p)} now={now} onAction={onAction} parentName={parent?.name ?? null} />
          </div>
        ))}
      </div>
    );
  }

  return (
    <BlockStack gap="400">
      {body}
      {total > 0 && pages > 1 && (
        <InlineStack align="center">
          <Pagination
            hasPrevious={page > 1}
            onPrevious={() => onPage(page - 1)}
            hasNext={page < pages}
            onNext={() => onPage(page + 1)}
            label={`Page ${Math.min(page, pages)} of ${pages}`}
          />
        </InlineStack>
      )}
      <RenameModal
        project={renaming}
        onClose={() => setRenaming(null)}
        onRename={async (p, name) => {
          await renameProject(p.id, name);
          await afterChange();
        }}
      />
      <MoveModal
        project={moving}
        folders={(folders?.data ?? []).map((f) => f.id)}
        onClose={() => setMoving(null)}
        onMove={async (p, f) => {
          await moveProject(p.id, f);
          await afterChange();
        }}
      />
      <DeleteModal
        project={deleting}
        onClose={() => setDeleting(null)}
        onDelete={async (p) => {
          await deleteProject(p.id);
          // Deleting the last card of a page goes back one page.
          if (projects.length === 1 && page > 1) onPage(page - 1);
          await afterChange();
          await refresh();
        }}
      />
      <FeedbackModal
        open={feedbackFor !== null}
        onClose={() => setFeedbackFor(null)}
        onSubmit={async (v) => {
          if (!feedbackFor) return;
          await sendProjectFeedback(feedbackFor.id, v);
          toast.show('Thank you for the feedback');
        }}
      />
    </BlockStack>
  );
}
