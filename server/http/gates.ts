// Every route a plan gates, in ONE place, enforced by one middleware that asks the entitlements function
// (server/domains/billing/entitlements.ts). A route whose gate depends on the request (an SRT on create, a
// subtitle download) says so with `when`. Mounted by server/http/app.ts before the domain routers; a test walks
// this list with a trial user (each refused) and a Business user (each allowed).
import type { Context, MiddlewareHandler } from 'hono';
import type { FeatureKey } from '../../contract/features';
import { decide, entitlementsFor, featureRefused, type Scope } from '../domains/billing/entitlements';
import { findProject } from '../domains/projects/repository';
import { glossarySpaceId } from '../domains/glossaries/repository';
import { isUuid } from '../domains/spaces/guard';
import { optionalSpaceIdFromQuery, requireSpaceAccess } from './access';
import { requireUser } from './auth';
import type { AppEnv } from './env';

export type GateMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Gate {
  method: GateMethod;
  /** Path under /api, in Hono's syntax. */
  path: string;
  feature: FeatureKey;
  /**
   * Whose plan applies: 'project' (the space of the :id project), 'space' (the space_id query; the caller's own
   * plan when absent), 'user' (the caller's own plan) or 'glossary' (the space of the :id or ?glossary_id
   * dictionary).
   */
  scope: 'project' | 'space' | 'user' | 'glossary';
  /** Only when the request asks for the gated part (read from the JSON body or the query). */
  when?: (req: GateRequest) => boolean;
  /** What is gated, for people reading the list (and the API document). */
  note: string;
}

export interface GateRequest {
  body: Record<string, unknown>;
  query: Record<string, string>;
}

const has = (v: unknown) => v !== undefined && v !== null && v !== '';
/** Distinct target languages a create asks for (dst_lang and dst_langs together). */
function targetLanguageCount(body: Record<string, unknown>): number {
  const list = [body.dst_lang, ...(Array.isArray(body.dst_langs) ? body.dst_langs : [])];
  return new Set(list.filter((l): l is string => typeof l === 'string').map((l) => l.trim().toLowerCase())).size;
}

export const GATES: readonly Gate[] = [
  {
    method: 'POST', path: '/project/create_transcript', feature: 'srt_upload', scope: 'space',
    when: (r) => has(r.body.src_srt_media_id) || has(r.body.dst_srt_media_id) || has(r.body.src_text),
    note: 'creating a project from an uploaded source or target SRT or a source transcript',
  },
  {
    method: 'POST', path: '/project/create_transcript', feature: 'glossary', scope: 'space',
    when: (r) => has(r.body.glossary_id), note: 'creating a project with a dictionary',
  },
  {
    method: 'POST', path: '/project/create_transcript', feature: 'multilanguage', scope: 'space',
    when: (r) => targetLanguageCount(r.body) > 1,
    note: 'creating a project in several target languages at once',
  },
  {
    method: 'POST', path: '/project/:id/copy', feature: 'free_languages', scope: 'project',
    when: (r) => r.body.free_dubbing === true, note: 'a copy into another language dubbed free of charge (free_dubbing)',
  },
  {
    method: 'PATCH', path: '/project/:id/glossary', feature: 'glossary', scope: 'project',
    when: (r) => has(r.query.glossary_id) && r.query.glossary_id !== 'null', note: 'choosing a dictionary for a project',
  },
  {
    method: 'POST', path: '/project/:id/media_download', feature: 'srt_download', scope: 'project',
    when: (r) => r.body.media_type === 'srt' || r.body.media_type === 'vtt', note: 'downloading the subtitles (SRT, VTT)',
  },
  {
    method: 'POST', path: '/batch', feature: 'multilanguage', scope: 'space',
    note: 'a batch: many videos dubbed into several languages in one go',
  },
  {
    method: 'POST', path: '/shop/import', feature: 'multilanguage', scope: 'space',
    when: (r) => targetLanguageCount(r.body) > 1 || (Array.isArray(r.body.items) && r.body.items.length > 1),
    note: 'importing store videos into several target languages, or several videos at once (a batch)',
  },
  { method: 'POST', path: '/project/:id/burn_subtitles', feature: 'subtitles', scope: 'project', note: 'burning subtitles into the video' },
  { method: 'POST', path: '/project/:id/run_check_face_task', feature: 'lipsync', scope: 'project', note: 'checking the faces for lip-sync' },
  { method: 'POST', path: '/project/:id/run_lipsync_task', feature: 'lipsync', scope: 'project', note: 'lip-sync' },
  { method: 'POST', path: '/users/settings/api/credentials', feature: 'api', scope: 'user', note: 'creating API keys' },
  { method: 'POST', path: '/tools/summarize', feature: 'ai_rewrite', scope: 'space', note: 'the AI rewrite tool' },
  { method: 'GET', path: '/glossary', feature: 'glossary', scope: 'space', note: 'listing the dictionaries of a Teamspace' },
  { method: 'POST', path: '/glossary', feature: 'glossary', scope: 'space', note: 'creating a dictionary' },
  { method: 'DELETE', path: '/glossary', feature: 'glossary', scope: 'glossary', note: 'deleting a dictionary' },
  { method: 'GET', path: '/glossary/:id', feature: 'glossary', scope: 'glossary', note: 'reading a dictionary' },
  { method: 'PATCH', path: '/glossary/:id', feature: 'glossary', scope: 'glossary', note: 'editing a dictionary' },
  { method: 'POST', path: '/glossary/:id/import', feature: 'glossary', scope: 'glossary', note: 'importing dictionary terms from CSV' },
  { method: 'GET', path: '/glossary/:id/export', feature: 'glossary', scope: 'glossary', note: 'exporting a dictionary as CSV' },
  { method: 'POST', path: '/project/:id/transcript/:segmentId/rewrite', feature: 'ai_rewrite', scope: 'project', note: 'AI rewrite of a segment in the editor' },
  { method: 'POST', path: '/project/:id/transcript/:segmentId/shorten', feature: 'ai_rewrite', scope: 'project', note: 'Shorten a segment to fit its slot in the editor' },
  // The Voice Clone Library: these two here; every other /voice_preset call asks the entitlements function in
  // server/domains/voices/service.ts for the space of the voice or project it names (and the clone limit).
  { method: 'GET', path: '/voice_preset', feature: 'voice_presets', scope: 'space', note: 'listing the voice clones of a Teamspace' },
  { method: 'POST', path: '/voice_preset/create', feature: 'voice_presets', scope: 'space', note: 'cloning a voice from a sample' },
  // The cast of a Teamspace (/space/:id/cast...) is part of the same feature; its service asks the entitlements
  // function for the :id space's owner's plan (server/domains/cast/service.ts), as no scope here reads a path's space.
];

function bodyOf(text: string): Record<string, unknown> {
  try {
    const v: unknown = text.trim() === '' ? {} : JSON.parse(text);
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {}; // the route's own parser answers 422 for a malformed body
  }
}

const MAX_GATE_BODY = 5 * 1024 * 1024;

async function gateRequest(c: Context<AppEnv>): Promise<GateRequest> {
  const len = Number(c.req.header('content-length') ?? '0');
  const json = (c.req.header('content-type') ?? '').includes('json');
  const body = json && len <= MAX_GATE_BODY && c.req.method !== 'GET' ? bodyOf(await c.req.text()) : {};
  return { body, query: c.req.query() };
}

/** The scope whose plan applies, after the caller's access was checked; null lets the route answer (404...). */
async function scopeOf(c: Context<AppEnv>, g: Gate): Promise<Scope | null> {
  const user = c.get('user');
  if (g.scope === 'user') return { userId: user.id };
  if (g.scope === 'space') {
    const spaceId = optionalSpaceIdFromQuery(c);
    if (spaceId === null) return { userId: user.id };
    return { spaceId: (await requireSpaceAccess(c, spaceId)).id };
  }
  if (g.scope === 'glossary') {
    const gid = c.req.param('id') ?? c.req.query('glossary_id');
    const spaceId = isUuid(gid) ? await glossarySpaceId(c.get('deps').db, gid) : null;
    return spaceId ? { spaceId: (await requireSpaceAccess(c, spaceId)).id } : null;
  }
  const id = c.req.param('id');
  if (!isUuid(id)) return null;
  const project = await findProject(c.get('deps').db, id);
  if (!project) return null;
  return { spaceId: (await requireSpaceAccess(c, project.space_id)).id };
}

/** The middleware of one gate: refuses with the 403 feature refusal when the plan does not include it. */
export function gateMiddleware(g: Gate): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const user = c.get('user');
    // Staff (superusers) are not limited by a plan.
    if (!user.is_superuser && (!g.when || g.when(await gateRequest(c)))) {
      const scope = await scopeOf(c, g);
      if (scope) {
        const d = decide(await entitlementsFor(c.get('deps').db, scope), g.feature);
        if (!d.allowed) throw featureRefused(d.refusal!);
      }
    }
    await next();
  };
}

/** Registers every gate on the /api router (before the domain routers, so it runs first). */
export function mountGates(api: { on(method: string, path: string, ...h: MiddlewareHandler<AppEnv>[]): unknown }): void {
  for (const g of GATES) api.on(g.method, g.path, requireUser, gateMiddleware(g));
}
