// /api/voice_preset (spec section 7): POST create (?space_id, from an upload), POST from_project, GET ?space_id,
// GET statuses?ids, GET|PATCH|DELETE {id}, GET {id}/sample?language&similarity_boost&stability,
// POST {id}/update_settings, POST {id}/update_settings_from_project. Beside them:
// POST /api/library/media/extract-audio (the sound of a video as an audio upload) and the voice tutorial flags
// POST /api/users/set_voice_preset_tutorial_displayed | set_instant_voice_clone_tooltip_displayed.
// Plan: the service asks the entitlements function (voice_presets, instant_voice_preset, limits.voiceClones).
import { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import * as v from 'valibot';
import {
  CreateVoicePresetRequest, UpdateVoicePresetRequest, VoicePresetFromProjectRequest, VoicePresetSettingsRequest,
} from '../../../contract/schemas/voice-preset';
import { spaceIdFromQuery } from '../../http/access';
import type { AppEnv } from '../../http/env';
import { ApiError, unprocessable } from '../../http/errors';
import { jsonBody, queryWith } from '../../http/validate';
import { MultipartError, readMultipart } from '../library/multipart';
import { formatBytes, mediaJson } from '../library/service';
import * as svc from './service';
import { routeFacts, SPACE_Q } from '../../http/route-facts';

export const voicePresetRoutes = new Hono<AppEnv>();

// The Voice Clone Library: listing and cloning from a sample carry plan gates here; every other /voice_preset call
// asks the entitlements function in ./service.ts for the space of the voice or project it names (and the clone
// limit). The cast of a Teamspace (/space/:id/cast...) is part of the same feature; its service asks the
// entitlements function for the :id space's owner's plan (server/domains/cast/service.ts), as no gate scope reads
// a path's space.
voicePresetRoutes.get('/', routeFacts({
  summary: 'The Voice Clone Library of a Teamspace (with the plan\'s limit)',
  response: 'VoicePresetList',
  query: [SPACE_Q],
  gates: [
    { feature: 'voice_presets', scope: 'space', note: 'listing the voice clones of a Teamspace' },
  ],
}), async (c) => c.json(await svc.listPresets(c.get('deps'), c.get('user'), spaceIdFromQuery(c))));

voicePresetRoutes.post('/create', routeFacts({
  summary: 'Clone a voice from an uploaded sample (audio, or a video\'s sound; at most 5 minutes, with speech); status processing, then done or error',
  body: 'CreateVoicePresetRequest',
  response: 'VoicePreset',
  status: 201,
  query: [SPACE_Q],
  example: { label: 'Narrator', media_id: '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90', similarity_boost: 0.75, stability: 0.5 },
  gates: [
    { feature: 'voice_presets', scope: 'space', note: 'cloning a voice from a sample' },
  ],
}), async (c) => {
  const spaceId = spaceIdFromQuery(c);
  const body = await jsonBody(c, CreateVoicePresetRequest);
  return c.json(await svc.createFromUpload(c.get('deps'), c.get('user'), spaceId, body), 201);
});

voicePresetRoutes.post('/from_project', routeFacts({
  summary: 'Clone a project\'s speaker into the library, or an instant voice preset of that speaker (is_temporary)',
  body: 'VoicePresetFromProjectRequest',
  response: 'VoicePreset',
  status: 201,
}), async (c) => {
  const body = await jsonBody(c, VoicePresetFromProjectRequest);
  return c.json(await svc.createFromProject(c.get('deps'), c.get('user'), body), 201);
});

voicePresetRoutes.get('/statuses', routeFacts({
  summary: 'Statuses of voice presets (processing, done, error)',
  response: 'VoicePresetStatuses',
  query: [{ name: 'ids', required: true, description: 'Comma-separated preset ids' }],
}), async (c) => {
  const raw = [...c.req.queries('ids') ?? []].flatMap((s) => s.split(',')).map((s) => s.trim()).filter(Boolean);
  if (raw.length === 0) throw unprocessable([{ loc: ['query', 'ids'], msg: 'Field is required', type: 'missing' }]);
  if (raw.length > 100) throw unprocessable([{ loc: ['query', 'ids'], msg: 'At most 100 ids', type: 'value_error' }]);
  return c.json(await svc.presetStatuses(c.get('deps'), c.get('user'), raw));
});

voicePresetRoutes.get('/:id', routeFacts({ summary: 'A voice preset', response: 'VoicePreset' }), async (c) => c.json(await svc.getPreset(c.get('deps'), c.get('user'), c.req.param('id'))));

voicePresetRoutes.patch('/:id', routeFacts({
  summary: 'Rename a voice preset or change its accent (similarity_boost) and expressiveness (stability)',
  body: 'UpdateVoicePresetRequest',
  response: 'VoicePreset',
}), async (c) => {
  const body = await jsonBody(c, UpdateVoicePresetRequest);
  return c.json(await svc.updatePreset(c.get('deps'), c.get('user'), c.req.param('id'), body));
});

voicePresetRoutes.delete('/:id', routeFacts({ summary: 'Delete a voice preset', response: 'Deleted' }), async (c) => c.json(await svc.deletePreset(c.get('deps'), c.get('user'), c.req.param('id'))));

const Unit = v.optional(
  v.pipe(v.string(), v.transform(Number), v.number('must be a number'), v.minValue(0, 'must be between 0 and 1'), v.maxValue(1, 'must be between 0 and 1')),
);
const SampleQuery = v.object({
  language: v.optional(v.pipe(v.string(), v.trim(), v.toLowerCase(), v.regex(/^[a-z]{2,3}([-_][a-z0-9]{2,8})?$/, 'The language must be a code such as "en" or "es"')), 'en'),
  similarity_boost: Unit,
  stability: Unit,
});

voicePresetRoutes.get('/:id/sample', routeFacts({
  summary: 'A WAV of the voice saying a sample sentence',
  binary: 'audio/wav',
  query: [
      { name: 'language', description: 'Language code (default en)' }, { name: 'similarity_boost', description: 'Accent, 0-1 (default: the preset\'s)' },
      { name: 'stability', description: 'Stability, 0-1 (default: the preset\'s)' },
    ],
  errors: { 502: 'The voice engine wrote no audio', 503: 'The voice engine of this voice is not configured any more' },
}), async (c) => {
  const q = queryWith(c, SampleQuery);
  const wav = await svc.presetSample(c.get('deps'), c.get('user'), c.req.param('id'), q);
  return c.body(new Uint8Array(wav), 200, { 'content-type': 'audio/wav', 'cache-control': 'private, max-age=3600' });
});

voicePresetRoutes.post('/:id/update_settings', routeFacts({
  summary: 'Change accent and expressiveness; projects using the voice re-voice those speakers on their next generate',
  body: 'VoicePresetSettingsRequest',
  response: 'VoicePreset',
}), async (c) => {
  const body = await jsonBody(c, VoicePresetSettingsRequest);
  return c.json(await svc.updateSettings(c.get('deps'), c.get('user'), c.req.param('id'), body, false));
});

voicePresetRoutes.post('/:id/update_settings_from_project', routeFacts({
  summary: 'Change the settings from the editor of a project whose speaker uses the voice',
  body: 'VoicePresetSettingsRequest',
  response: 'VoicePreset',
}), async (c) => {
  const body = await jsonBody(c, VoicePresetSettingsRequest);
  return c.json(await svc.updateSettings(c.get('deps'), c.get('user'), c.req.param('id'), body, true));
});

/** Mounted at /api/library: POST media/extract-audio (multipart field `file`: a video or audio file). */
export const extractAudioRoutes = new Hono<AppEnv>();
extractAudioRoutes.post('/media/extract-audio', routeFacts({
  summary: 'Upload a video (multipart field file); its sound is kept as an audio upload (16 kHz mono WAV)',
  query: [SPACE_Q],
  response: 'Media',
  errors: {
    413: 'The file is larger than the upload limit or longer than the duration limit, a field is too long, or the body has too many parts',
    415: 'Not a multipart/form-data body',
    507: 'The server is out of disk space: nothing was stored (see Retry-After)',
  },
}), async (c) => {
  const deps = c.get('deps');
  const spaceId = spaceIdFromQuery(c);
  const tmpDir = join(deps.config.dataDir, 'tmp');
  await mkdir(tmpDir, { recursive: true });
  const tmp = join(tmpDir, `extract-${randomUUID()}`);
  try {
    let parsed;
    try {
      parsed = await readMultipart(c.req.raw.body, c.req.header('content-type'), {
        fileField: 'file', destPath: tmp, maxBytes: deps.config.limits.maxVideoSize, maxSizeText: formatBytes(deps.config.limits.maxVideoSize),
      });
    } catch (e) {
      if (e instanceof MultipartError) throw new ApiError(e.status, e.message);
      throw e;
    }
    if (!parsed.file) throw unprocessable([{ loc: ['body', 'file'], msg: 'Field is required', type: 'missing' }]);
    const row = await svc.extractAudioUpload(deps, c.get('user'), spaceId, { local: tmp, filename: parsed.file.filename || 'video' });
    return c.json(mediaJson(row));
  } finally {
    await rm(tmp, { force: true });
  }
});

/** Mounted at /api/users: the voice tutorial flags (spec section 7, user calls). */
export const voiceTutorialRoutes = new Hono<AppEnv>();
voiceTutorialRoutes.post('/set_voice_preset_tutorial_displayed', routeFacts({ summary: 'The voice clone tutorial was shown', response: 'VoiceTutorialFlags' }), async (c) =>
  c.json(await svc.setTutorialFlag(c.get('deps'), c.get('user'), 'voice_preset_tutorial_displayed')),
);
voiceTutorialRoutes.post('/set_instant_voice_clone_tooltip_displayed', routeFacts({ summary: 'The instant voice clone tooltip was shown', response: 'VoiceTutorialFlags' }), async (c) =>
  c.json(await svc.setTutorialFlag(c.get('deps'), c.get('user'), 'instant_voice_clone_tooltip_displayed')),
);
voiceTutorialRoutes.get('/voice_tutorials', routeFacts({ summary: 'Which voice tutorials were shown', response: 'VoiceTutorialFlags' }), async (c) => c.json(await svc.tutorialFlags(c.get('deps'), c.get('user'))));
