// /api/project: the project calls of spec section 7. Parse -> service -> shape.
import { Hono } from 'hono';
import * as v from 'valibot';
import { PROJECT_PAGE_SIZE } from '../../../contract/constants';
import {
  AsrWordsRequest,
  BURN_VIDEO_TYPES, CopyProjectRequest, CreateTranscriptRequest, FeedbackRequest, MediaDownloadRequest, PromptRequest,
  RunLipsyncRequest, UpdateProjectRequest,
} from '../../../contract/schemas/project';

import { unprocessable } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { jsonBody, queryWith } from '../../http/validate';
import { spaceIdFromQuery } from '../../http/access';
import { requireSpaceAccess } from '../spaces/access';
import { transcriptRoutes } from './transcript/routes';
import { runCheckFaceTask, runLipsyncTask } from './lipsync';
import { projectEventStream } from '../../http/events';
import * as repo from './repository';
import * as svc from './service';
import { getAsrWords, setAsrWords } from './asr-words';
import { oneProjectJson } from './shape';
import { projectListPage } from './list';
import { sendAnswer } from '../../http/answers';
import { qualityCsv } from './quality';
import { safeFileName } from '../../storage/signed';
import { routeFacts, SPACE_Q, has, targetLanguageCount } from '../../http/route-facts';

export const projectsRoutes = new Hono<AppEnv>();

const PageQuery = v.object({
  name: v.optional(v.pipe(v.string(), v.maxLength(255))),
  limit: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(1), v.maxValue(100)), String(PROJECT_PAGE_SIZE)),
  offset: v.optional(v.pipe(v.string(), v.toNumber(), v.integer(), v.minValue(0)), '0'),
});

projectsRoutes.get('/paginated', routeFacts({
  summary: 'Projects of a Teamspace, newest first (brotli or gzip when Accept-Encoding allows)',
  response: 'ProjectPage',
  query: [SPACE_Q, { name: 'limit', description: 'Page size (1-100, default 24)' }, { name: 'offset', description: 'Rows to skip' }, { name: 'name', description: 'Name contains' },
    { name: 'folder_id', description: 'Only the projects of this folder' }],
}), async (c) => {
  const deps = c.get('deps');
  const spaceId = spaceIdFromQuery(c);
  const q = queryWith(c, v.object({ ...PageQuery.entries, space_id: v.optional(v.string()), folder_id: v.optional(v.string()) }));
  // Access to the space is checked in the page's own query (projectListPage).
  const page = await projectListPage(deps, c.get('user'), spaceId, { name: q.name, folderId: q.folder_id, limit: Number(q.limit), offset: Number(q.offset) });
  return sendAnswer(c, page);
});

projectsRoutes.get('/folders', routeFacts({ summary: 'The folders of a Teamspace with their project counts', response: 'FolderList', query: [SPACE_Q] }), async (c) => {
  const deps = c.get('deps');
  const space = await requireSpaceAccess(c, spaceIdFromQuery(c));
  const rows = await repo.listFolders(deps.db, space.id);
  return c.json({ data: rows.map((r) => ({ id: r.id, count: Number(r.count) })) });
});

// Live status and progress of the space's projects (server-sent events; the list polls when it fails).
projectsRoutes.get('/events', routeFacts({
  summary: "Live status and progress of the Teamspace's projects (server-sent events named project: { id, space_id, status, progress })",
  query: [SPACE_Q],
  binary: 'text/event-stream',
}), async (c) => {
  const spaceId = spaceIdFromQuery(c);
  const space = await requireSpaceAccess(c, spaceId);
  return projectEventStream(c, { filter: (e) => e.space_id === space.id, recheck: () => requireSpaceAccess(c, space.id) });
});

projectsRoutes.post('/create_transcript', routeFacts({
  summary: 'Create a project from an uploaded video (media_id) or a link; the analysis starts at once',
  body: 'CreateTranscriptRequest',
  response: 'Project',
  query: [SPACE_Q],
  example: { name: 'Product demo', src_lang: 'en', dst_lang: 'es', media_id: '0b6f3c8e-3f4b-4f0a-9d55-5f2c1c7d8e90' },
  gates: [
    { feature: 'srt_upload', scope: 'space', when: (r) => has(r.body.src_srt_media_id) || has(r.body.dst_srt_media_id) || has(r.body.src_text), note: 'creating a project from an uploaded source or target SRT or a source transcript' },
    { feature: 'glossary', scope: 'space', when: (r) => has(r.body.glossary_id), note: 'creating a project with a dictionary' },
    { feature: 'multilanguage', scope: 'space', when: (r) => targetLanguageCount(r.body) > 1, note: 'creating a project in several target languages at once' },
  ],
  creates: { startsJob: true },
  errors: {
    400: 'The request cannot be done as asked: an unknown language, the same source and target language, or a pair the engines cannot recognise, translate or voice; both or neither of media_id and link, an invalid link, a subtitle file where a video is needed (or the reverse), an unreadable subtitle file, no or too many target languages, or a dictionary of another language pair',
  },
}), async (c) => {
  const body = await jsonBody(c, CreateTranscriptRequest);
  return c.json(await svc.createTranscript(c.get('deps'), c.get('user'), spaceIdFromQuery(c), body));
});

projectsRoutes.get('/:id', routeFacts({ summary: 'A project (status, progress, results)', response: 'Project' }), async (c) => {
  const deps = c.get('deps');
  const { project } = await svc.loadProject(c.get('deps'), c.get('user'), c.req.param('id'));
  return c.json(await oneProjectJson(deps, project));
});

// Live status and progress of one project (the editor), starting with its current state.
projectsRoutes.get('/:id/events', routeFacts({
  summary: 'Live status and progress of a project, its current state first (server-sent events named project: { id, space_id, status, progress })',
  binary: 'text/event-stream',
}), async (c) => {
  const { project } = await svc.loadProject(c.get('deps'), c.get('user'), c.req.param('id'));
  return projectEventStream(c, {
    filter: (e) => e.id === project.id,
    recheck: () => svc.loadProject(c.get('deps'), c.get('user'), project.id),
    initial: [{ id: project.id, space_id: project.space_id, status: project.status, progress: project.progress }],
  });
});

projectsRoutes.patch('/:id', routeFacts({
  summary: 'Rename a project or change speakers\' voices',
  body: 'UpdateProjectRequest',
  response: 'Project',
  errors: { 400: 'A voice that is not available for the project\'s target language' },
}), async (c) => {
  const body = await jsonBody(c, UpdateProjectRequest);
  return c.json(await svc.updateProject(c.get('deps'), c.get('user'), c.req.param('id'), body));
});

projectsRoutes.delete('/:id', routeFacts({ summary: 'Deletes a project, its media and outputs (a running job is stopped and refunded)', response: 'Deleted' }), async (c) => {
  await svc.deleteProject(c.get('deps'), c.get('user'), c.req.param('id'));
  return c.json({ id: c.req.param('id'), status: 'deleted' });
});

projectsRoutes.put('/:id/prompt', routeFacts({
  summary: 'The translation instructions of a project',
  body: 'PromptRequest',
  response: 'Project',
}), async (c) => {
  const body = await jsonBody(c, PromptRequest);
  return c.json(await svc.setPrompt(c.get('deps'), c.get('user'), c.req.param('id'), body.prompt));
});

projectsRoutes.get('/:id/asr_words', routeFacts({
  summary: 'The words speech recognition should know (product and place names)',
  response: 'AsrWordsResponse',
}), async (c) => c.json(await getAsrWords(c.get('deps'), c.get('user'), c.req.param('id'))));

projectsRoutes.put('/:id/asr_words', routeFacts({
  summary: 'Set the words speech recognition should know (at most 200, 60 characters each); the dictionary terms are added to them',
  body: 'AsrWordsRequest',
  response: 'AsrWordsResponse',
  example: { words: ['Zephyrix', 'Ouarzazate'] },
}), async (c) => {
  const readWords = async () => (await jsonBody(c, AsrWordsRequest)).words;
  return c.json(await setAsrWords(c.get('deps'), c.get('user'), c.req.param('id'), readWords));
});

projectsRoutes.patch('/:id/glossary', routeFacts({
  summary: 'Set the project\'s dictionary',
  response: 'Project',
  query: [{ name: 'glossary_id', description: 'A dictionary of the Teamspace; absent, empty or null for none' }],
  gates: [
    { feature: 'glossary', scope: 'project', when: (r) => has(r.query.glossary_id) && r.query.glossary_id !== 'null', note: 'choosing a dictionary for a project' },
  ],
  errors: { 400: 'The dictionary is for another language pair' },
}), async (c) => {
  const raw = c.req.query('glossary_id');
  const id = raw === undefined || raw.trim() === '' || raw === 'null' ? null : raw.trim();
  return c.json(await svc.setGlossary(c.get('deps'), c.get('user'), c.req.param('id'), id));
});

projectsRoutes.post('/:id/copy', routeFacts({
  summary: 'Copy the project into another language',
  body: 'CopyProjectRequest',
  response: 'Project',
  example: { dst_lang: 'fr', free_dubbing: false },
  gates: [
    { feature: 'free_languages', scope: 'project', when: (r) => r.body.free_dubbing === true, note: 'a copy into another language dubbed free of charge (free_dubbing)' },
  ],
  creates: { startsJob: true },
  errors: { 400: 'The target language: an unknown language, the same source and target language, or a pair the engines cannot recognise, translate or voice' },
}), async (c) => {
  const body = await jsonBody(c, CopyProjectRequest);
  return c.json(await svc.copyProject(c.get('deps'), c.get('user'), c.req.param('id'), body.dst_lang, body.free_dubbing));
});

projectsRoutes.post('/:id/generate', routeFacts({
  summary: 'Dub the video (charges minutes)',
  response: 'Project',
  creates: { startsJob: true },
  errors: { 402: 'Not enough minutes in the Teamspace for the dub (the detail says how many are needed and available)' },
}), async (c) => {
  return c.json(await svc.generate(c.get('deps'), c.get('user'), c.req.param('id')));
});

// Stops the running job (409 when nothing runs).
projectsRoutes.post('/:id/cancel', routeFacts({
  summary: 'Stop the running job (409 when nothing runs); a cancelled dub gets its minutes back',
  response: 'Project',
}), async (c) => {
  return c.json(await svc.cancelProject(c.get('deps'), c.get('user'), c.req.param('id')));
});

// Starts a cancelled analysis again from the stage it was stopped in.
projectsRoutes.post('/:id/restart', routeFacts({
  summary: 'Start a cancelled analysis again from the stage it was stopped in (409 otherwise)',
  response: 'Project',
  creates: { startsJob: true },
}), async (c) => {
  return c.json(await svc.restartProject(c.get('deps'), c.get('user'), c.req.param('id')));
});

projectsRoutes.post('/:id/media_download', routeFacts({
  summary: 'A download URL for a result',
  body: 'MediaDownloadRequest',
  response: 'MediaDownloadResponse',
  example: { media_type: 'video' },
  gates: [
    { feature: 'srt_download', scope: 'project', when: (r) => r.body.media_type === 'srt' || r.body.media_type === 'vtt', note: 'downloading the subtitles (SRT, VTT)' },
  ],
  errors: { 400: 'Unknown media type' },
}), async (c) => {
  const body = await jsonBody(c, MediaDownloadRequest);
  return c.json(await svc.mediaDownload(c.get('deps'), c.get('user'), c.req.param('id'), body.media_type));
});

function videoType(c: { req: { query(k: string): string | undefined } }): string {
  const t = c.req.query('video_type') ?? 'translated';
  if (!(BURN_VIDEO_TYPES as readonly string[]).includes(t)) {
    throw unprocessable([{ loc: ['query', 'video_type'], msg: `video_type must be one of ${BURN_VIDEO_TYPES.join(', ')}`, type: 'enum' }]);
  }
  return t;
}

projectsRoutes.post('/:id/burn_subtitles', routeFacts({
  summary: 'Burn the subtitles into the video',
  response: 'Project',
  query: [{ name: 'video_type', description: 'translated (default), original or lipsync' }],
  gates: [
    { feature: 'subtitles', scope: 'project', note: 'burning subtitles into the video' },
  ],
}), async (c) => {
  return c.json(await svc.burnSubtitles(c.get('deps'), c.get('user'), c.req.param('id'), videoType(c)));
});

projectsRoutes.post('/:id/set_subtitles_banner_displayed', routeFacts({
  summary: 'Remember that the subtitles banner of a video type was shown (subtitles_banner_displayed)',
  response: 'Project',
  query: [{ name: 'video_type', description: 'translated (default), original or lipsync' }],
}), async (c) => {
  return c.json(await svc.setBannerDisplayed(c.get('deps'), c.get('user'), c.req.param('id'), videoType(c)));
});

projectsRoutes.post('/:id/feedback', routeFacts({
  summary: 'Feedback on a project',
  body: 'FeedbackRequest',
  response: 'FeedbackAnswer',
  errors: { 400: 'Neither a comment nor an option' },
}), async (c) => {
  const body = await jsonBody(c, FeedbackRequest);
  return c.json(await svc.addFeedback(c.get('deps'), c.get('user'), c.req.param('id'), body));
});

projectsRoutes.post('/:id/run_check_face_task', routeFacts({
  summary: 'Check the video for faces (the project\'s face_check fills in)',
  response: 'Project',
  gates: [
    { feature: 'lipsync', scope: 'project', note: 'checking the faces for lip-sync' },
  ],
}), async (c) => {
  return c.json(await runCheckFaceTask(c.get('deps'), c.get('user'), c.req.param('id')));
});

projectsRoutes.post('/:id/run_lipsync_task', routeFacts({
  summary: 'Lip-sync the dub',
  body: 'RunLipsyncRequest',
  response: 'Project',
  gates: [
    { feature: 'lipsync', scope: 'project', note: 'lip-sync' },
  ],
  errors: { 402: 'Not enough minutes for the lip-sync (free lip-sync minutes first; only those with is_free_lipsync)' },
}), async (c) => {
  const body = await jsonBody(c, RunLipsyncRequest);
  return c.json(await runLipsyncTask(c.get('deps'), c.get('user'), c.req.param('id'), body));
});

// The quality report of the last dub (JSON), or ?format=csv for a spreadsheet.
projectsRoutes.get('/:id/quality', routeFacts({
  summary: 'The quality report of the last dub (format=csv: as a CSV file)',
  response: 'QualityReport',
  query: [{ name: 'format', description: 'json (default) or csv' }],
}), async (c) => {
  const format = c.req.query('format') ?? 'json';
  if (format !== 'json' && format !== 'csv') {
    throw unprocessable([{ loc: ['query', 'format'], msg: 'format must be json or csv', type: 'enum' }]);
  }
  const { project, report } = await svc.qualityReport(c.get('deps'), c.get('user'), c.req.param('id'));
  if (format === 'json') return c.json(report);
  const name = safeFileName(`${project.name}_${project.dst_lang}_quality`, '.csv');
  return c.body(qualityCsv(report), 200, {
    'content-type': 'text/csv; charset=utf-8',
    'content-disposition': `attachment; filename="${name}"`,
  });
});

projectsRoutes.route('/', transcriptRoutes);

projectsRoutes.get('/:id/voice_pool', routeFacts({ summary: 'Voices available for the target language', response: 'VoicePool' }), async (c) => {
  return c.json(await svc.voicePool(c.get('deps'), c.get('user'), c.req.param('id')));
});
