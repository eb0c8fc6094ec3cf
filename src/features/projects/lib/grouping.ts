// The list groups the projects made from another one (its other languages, its copies) under their source:
// each source is followed by its language projects on the same page; a project whose source is not on the
// page stays where it is, marked with the source's name when known.
import type { Project } from '../../../../contract/schemas/project';

export interface ListedProject {
  project: Project;
  /** The source this project is listed under (on this page), or null for a top-level card. */
  parent: Project | null;
}

export function groupLanguages(projects: readonly Project[]): ListedProject[] {
  const byId = new Map(projects.map((p) => [p.id, p]));
  const children = new Map<string, Project[]>();
  for (const p of projects) {
    const from = p.copied_from ?? null;
    if (from && from !== p.id && byId.has(from)) children.set(from, [...(children.get(from) ?? []), p]);
  }
  const placed = new Set<string>();
  const out: ListedProject[] = [];
  const place = (p: Project, parent: Project | null) => {
    if (placed.has(p.id)) return;
    placed.add(p.id);
    out.push({ project: p, parent });
    for (const c of [...(children.get(p.id) ?? [])].sort((a, b) => a.dst_lang.localeCompare(b.dst_lang))) place(c, p);
  };
  for (const p of projects) {
    const from = p.copied_from ?? null;
    if (from && byId.has(from) && from !== p.id) continue; // placed after its source
    place(p, null);
  }
  // Cycles or leftovers (should not happen): still listed.
  for (const p of projects) place(p, null);
  return out;
}
