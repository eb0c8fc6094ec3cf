// Translation list paging (spec section 7): 24 a page, offset (page-1)*24, 0 for page 1 or less.
import { PROJECT_PAGE_SIZE } from '../../../../contract/constants';

/** Reads the `page` query value: a positive integer, anything else is page 1. */
export function parsePage(raw: string | null | undefined): number {
  if (raw == null || !/^\d+$/.test(raw.trim())) return 1;
  const n = Number(raw.trim());
  return Number.isSafeInteger(n) && n >= 1 ? n : 1;
}

export function pageOffset(page: number, size: number = PROJECT_PAGE_SIZE): number {
  if (!Number.isFinite(page) || page <= 1) return 0;
  return (Math.floor(page) - 1) * size;
}

export function pageCount(total: number, size: number = PROJECT_PAGE_SIZE): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / size));
}

/** The query of the paginated call, in the order of its SWR key (also what msw matches). */
export function projectsListQuery(o: { spaceId: string; page: number; searchText?: string; folderId?: string | null }) {
  const name = (o.searchText ?? '').trim();
  return {
    space_id: o.spaceId,
    name: name || undefined,
    folder_id: o.folderId || undefined,
    limit: String(PROJECT_PAGE_SIZE),
    offset: String(pageOffset(o.page)),
  };
}

/** Query string of the space home for a page and search text (page 1 and empty search are left out). */
export function listQuery(page: number, searchText: string): string {
  const q = new URLSearchParams();
  if (page > 1) q.set('page', String(page));
  if (searchText.trim()) q.set('searchText', searchText);
  const s = q.toString();
  return s ? `?${s}` : '';
}
