import * as v from 'valibot';
import { FEATURE_KEYS } from '../features';

export const Language = v.object({
  id: v.number(),
  label: v.string(),
  country_code: v.string(),
  country_label: v.string(),
  is_dialect: v.boolean(),
  is_free: v.boolean(),
  is_glossary_available: v.boolean(),
  is_voice_preset_available: v.boolean(),
  mean_char_per_syllable: v.number(),
  speech_rate: v.number(),
  speech_tempo_feature: v.boolean(),
  translation_label: v.string(),
  value: v.string(),
  voice_clone: v.boolean(),
  voice_clone_beta: v.boolean(),
  voice_clone_label: v.nullable(v.string()),
  voice_preset_dialect: v.nullable(v.string()),
  voice_preset_dialect_label: v.nullable(v.string()),
  /** A regional variant the translation engine has one vocabulary for: the voice follows the region, the words do not. */
  variant_note: v.optional(v.nullable(v.string())),
});
export type Language = v.InferOutput<typeof Language>;

export const FeatureMetadataSchema = v.object({
  desktop: v.optional(v.boolean()),
  mobile: v.optional(v.boolean()),
  download_disabled: v.optional(v.boolean()),
  user_limit: v.optional(v.nullable(v.number())),
  limit: v.optional(v.nullable(v.number())),
  /** The plan includes the feature but the server lacks what it needs (ai_rewrite: no LLM engine configured). */
  not_configured: v.optional(v.boolean()),
});
export const AvailableFeatureSchema = v.object({ enabled: v.boolean(), visible: v.boolean(), metadata: FeatureMetadataSchema });
export const Warning = v.object({
  severity: v.picklist(['info', 'warning', 'critical']),
  maintenance_time: v.nullable(v.string()),
  message: v.nullable(v.string()),
});
export const Survey = v.object({ id: v.string(), title: v.string(), questions: v.array(v.string()) });
/** The app-wide maintenance flag and warning banner: the settings' `features`, and the answer of PUT /api/admin/settings. */
export const AppFlags = v.object({ maintenance: v.boolean(), warning: v.nullable(Warning) });
export const Settings = v.object({
  kind: v.picklist(['app', 'user', 'space']),
  features: AppFlags,
  languages: v.object({ transcription: v.array(Language), translation: v.array(Language) }),
  scope_settings: v.object({
    available_features: v.record(v.picklist(FEATURE_KEYS), AvailableFeatureSchema),
    max_video_download_duration: v.number(),
    max_video_size: v.number(),
    max_video_duration: v.number(),
  }),
  surveys: v.array(Survey),
  white_label: v.boolean(),
  /** Where Get help (mail) and Help Center go; the in-app support chat needs a signed-in user. */
  support: v.optional(v.object({ email: v.nullable(v.string()), help_center_url: v.nullable(v.string()) })),
  /** E-mail goes out from this server (SMTP configured): invites without it offer a link instead. */
  mail_enabled: v.optional(v.boolean()),
  /** Single sign-on to the sister video-ad product is configured (SISTER_APP_URL + SISTER_APP_PUBLIC_KEY). */
  sister_app: v.optional(v.boolean()),
});
export type Settings = v.InferOutput<typeof Settings>;
/** PUT /api/admin/settings (superuser): the app-wide maintenance flag and warning banner. */
export const AdminSettingsUpdate = v.pipe(
  v.object({ maintenance: v.optional(v.boolean()), warning: v.optional(v.nullable(Warning)) }),
  v.check((o) => o.maintenance !== undefined || o.warning !== undefined, 'Nothing to update'),
);
