// The space home: the translation list (?page & ?searchText), folders, and the create-dub modal.
import { BlockStack, InlineStack, TextField } from '@shopify/polaris';
import { useEffect, useState, type ReactNode } from 'react';
import { Link, useLocation, useParams, useSearch } from 'wouter';
import type { Project } from '../../../../contract/schemas/project';
import { useSettings } from '../../../lib/api/use-settings';
import { PageFrame } from '../../../ui/page';
import { useCredits } from '../../../lib/api/use-credits';
import { useFolders, useRevalidateLists } from '../api';
import { listQuery, parsePage } from '../lib/paging';
import { CreateDubModal } from './CreateDubModal';
import { TEXT } from '../../../../contract/errors';
import { ProjectGrid } from './ProjectGrid';
import './projects.css';

export const SEARCH_DEBOUNCE_MS = 300;

/** page & searchText of the current URL, and a setter that keeps both in the query. */
export function useListQuery(): [{ page: number; searchText: string }, (page: number, searchText: string) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const q = new URLSearchParams(search);
  const value = { page: parsePage(q.get('page')), searchText: q.get('searchText') ?? '' };
  const set = (page: number, searchText: string) => navigate(`${location}${listQuery(page, searchText)}`, { replace: true });
  return [value, set];
}

export function SearchField({ value, onChange }: { value: string; onChange: (v: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const t = setTimeout(() => onChange(text), SEARCH_DEBOUNCE_MS);
    return () => clearTimeout(t);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [text]);
  return (
    <div style={{ maxWidth: 360, flex: 1 }}>
      <TextField
        label="Search projects"
        labelHidden
        placeholder="Search by name"
        autoComplete="off"
        value={text}
        onChange={setText}
        clearButton
        onClearButtonClick={() => {
          setText('');
          onChange('');
        }}
      />
    </div>
  );
}

/** What the app composes into the batch dialog slot (src/features/projects/batches). */
export interface BatchDialogSlot {
  open: boolean;
  onClose: () => void;
  onCreated: (batchId: string) => void;
}

/**
 * `top`: shown above the list (the demo view of the onboarding feature, composed by the app); `batch`: the batch
 * dialog (many videos into many languages), composed by the app.
 */
export function ProjectsHome({ top, batch }: { top?: ReactNode; batch?: (o: BatchDialogSlot) => ReactNode } = {}) {
  const { spaceId } = useParams<{ spaceId: string }>();
  const [{ page, searchText }, setQuery] = useListQuery();
  const [creating, setCreating] = useState(false);
  const [batchOpen, setBatchOpen] = useState(false);
  const [, navigate] = useLocation();
  const { settings } = useSettings();
  const { data: credits } = useCredits(spaceId);
  const { data: folders } = useFolders(spaceId);
  const projectHref = (p: Project) => `/spaces/${spaceId}/project/${p.id}`;
  const revalidate = useRevalidateLists();

  return (
    <PageFrame
      title="Translation"
      primaryAction={{ content: 'Translate video', onAction: () => setCreating(true) }}
      secondaryActions={batch ? [{ content: TEXT.batchOpen, onAction: () => setBatchOpen(true) }] : []}
      fullWidth
    >
      <BlockStack gap="400">
        {top}
        <InlineStack gap="400" blockAlign="center" wrap>
          <SearchField value={searchText} onChange={(t) => setQuery(1, t)} />
        </InlineStack>
        {folders && folders.data.length > 0 && (
          <nav aria-label="Folders" className="pj-folders">
            {folders.data.map((f) => (
              <Link key={f.id} className="pj-folder" href={`/spaces/${spaceId}/folders/${encodeURIComponent(f.id)}`}>
                {f.id} <span style={{ color: 'var(--p-color-text-secondary)' }}>({f.count})</span>
              </Link>
            ))}
          </nav>
        )}
        <ProjectGrid
          spaceId={spaceId}
          page={page}
          searchText={searchText}
          onPage={(p) => setQuery(p, searchText)}
          onCreate={() => setCreating(true)}
          projectHref={projectHref}
        />
      </BlockStack>
      {batch?.({
        open: batchOpen,
        onClose: () => setBatchOpen(false),
        onCreated: (id) => {
          setBatchOpen(false);
          void revalidate();
          navigate(`/spaces/${spaceId}/batch/${id}`);
        },
      })}
      <CreateDubModal
        open={creating}
        onClose={() => setCreating(false)}
        spaceId={spaceId}
        settings={settings}
        credits={credits}
        onCreated={(p) => {
          setCreating(false);
          void revalidate();
          navigate(projectHref(p));
        }}
      />
    </PageFrame>
  );
}

export function FolderPage() {
  const { spaceId, folderId: rawFolder } = useParams<{ spaceId: string; folderId: string }>();
  const folderId = decodeURIComponent(rawFolder);
  const [{ page, searchText }, setQuery] = useListQuery();
  const [, navigate] = useLocation();
  return (
    <PageFrame title={folderId} subtitle="Folder" backAction={{ content: 'Translation', onAction: () => navigate(`/spaces/${spaceId}`) }} fullWidth>
      <BlockStack gap="400">
        <SearchField value={searchText} onChange={(t) => setQuery(1, t)} />
        <ProjectGrid
          spaceId={spaceId}
          folderId={folderId}
          page={page}
          searchText={searchText}
          onPage={(p) => setQuery(p, searchText)}
          projectHref={(p) => `/spaces/${spaceId}/project/${p.id}`}
        />
      </BlockStack>
    </PageFrame>
  );
}
