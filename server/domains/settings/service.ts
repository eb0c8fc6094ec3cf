// GET /api/settings: app, user or space settings (spec section 7), and the admin's maintenance/warning flags.
import * as v from 'valibot';
import { FEATURE_KEYS } from '../../../contract/features';
import { Warning, type Language, type Settings } from '../../../contract/schemas/settings';
import { namespace } from '../../cache/index';
import type { AppDeps } from '../../deps';
import type { Db } from '../../db/index';
import type { Entitlements } from '../billing/entitlements';
import * as repo from './repository';

export type SettingsKind = Settings['kind'];
export type WarningValue = v.InferOutput<typeof Warning>;

export interface AppFlags {
  maintenance: boolean;
  warning: WarningValue | null;
}

// App flags change rarely and are read on every settings call: cached briefly in the app's state.
const FLAGS_CACHE_MS = 2000;
const FLAGS = namespace('settings.flags', () => ({ kept: null as { flags: AppFlags; at: number } | null }));

/** The stored flags (app_settings 'maintenance' and 'warning'); a malformed stored warning reads as none. */
export async function readAppFlags(db: Db): Promise<AppFlags> {
  const hit = db.state.of(FLAGS).kept;
  if (hit && Date.now() - hit.at < FLAGS_CACHE_MS) return hit.flags;
  const m = await repo.readAppSettings(db, ['maintenance', 'warning']);
  const w = v.safeParse(Warning, m.get('warning'));
  const flags: AppFlags = { maintenance: m.get('maintenance') === true, warning: w.success ? w.output : null };
  db.state.of(FLAGS).kept = { flags, at: Date.now() };
  return flags;
}

export async function writeAppFlags(db: Db, p: { maintenance?: boolean; warning?: WarningValue | null }): Promise<AppFlags> {
  await db.tx(async (t) => {
    if (p.maintenance !== undefined) await repo.writeAppSetting(t, 'maintenance', p.maintenance);
    if (p.warning === null) await repo.deleteAppSetting(t, 'warning');
    else if (p.warning !== undefined) await repo.writeAppSetting(t, 'warning', p.warning);
  });
  db.state.of(FLAGS).kept = null;
  return readAppFlags(db);
}

/** The registry's language lists (server/engines/registry.ts; it discovers once and caches). */
async function languageLists(deps: AppDeps): Promise<{ transcription: Language[]; translation: Language[] }> {
  // deps.engines is optional in AppDeps (bootstrap always sets it); without engines nothing can be dubbed.
  if (!deps.engines) return { transcription: [], translation: [] };
  return deps.engines.languageLists();
}

const byId = (a: Language, b: Language) => a.id - b.id;

/** Spec section 5: sorted by numeric id; free languages dropped from translation unless free_languages is on. */
export function shapeLanguages(
  lists: { transcription: Language[]; translation: Language[] },
  freeLanguagesEnabled: boolean,
): { transcription: Language[]; translation: Language[] } {
  return {
    transcription: [...lists.transcription].sort(byId),
    translation: lists.translation.filter((l) => freeLanguagesEnabled || !l.is_free).sort(byId),
  };
}

/** The Settings document for a kind and the entitlements that apply (server/domains/billing/entitlements.ts). */
export async function buildSettings(deps: AppDeps, kind: SettingsKind, ent: Entitlements): Promise<Settings> {
  const [flags, lists] = await Promise.all([readAppFlags(deps.db), languageLists(deps)]);
  const features = ent.features;
  const { limits } = deps.config;
  const available = {} as Settings['scope_settings']['available_features'];
  for (const k of FEATURE_KEYS) available[k] = features[k];
  return {
    kind,
    features: { maintenance: deps.config.maintenance || flags.maintenance, warning: flags.warning },
    languages: shapeLanguages(lists, features.free_languages.enabled),
    scope_settings: {
      available_features: available,
      max_video_download_duration: limits.maxVideoDownloadDuration,
      max_video_size: limits.maxVideoSize,
      max_video_duration: limits.maxVideoDuration,
    },
    surveys: [],
    white_label: deps.config.whiteLabel,
    support: { email: deps.config.support.publicEmail, help_center_url: deps.config.support.helpCenterUrl },
    mail_enabled: deps.config.smtp !== null,
    sister_app: deps.config.sisterApp !== null,
  };
}
