// Fixtures of the project/library/pipeline tests: accounts, uploads through the real multipart call,
// projects put directly into a given state, and a pipeline with test-friendly timings.
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { expect } from 'vitest';
import type { Harness } from '../harness';
import { api } from '../helpers';
import { typedClient } from '../typed-client';
import type { components } from '../../../src/lib/api/schema';
import { makeUser, type TestUser } from '../spaces/spaces-fixtures';
import { PROJECT_STAGES } from '../../../server/domains/projects/stages/index';
import { createPipelineServices, type PipelineBuildOptions } from '../../../server/domains/projects/pipeline/index';
import type { Pipeline } from '../../../server/domains/projects/pipeline/registry';
import { setStatus } from '../../../server/domains/projects/pipeline/stages';
import type { ProjectStatus } from '../../../contract/statuses';
import { insertSegments } from '../../../server/domains/projects/transcript/repository';
import { replaceSpeakers, setSpeakerVoice, updateProjectFields } from '../../../server/domains/projects/repository';

export { makeUser, api };
export type { TestUser };

let n = 0;
export async function newUser(h: Harness, prefix = 'user'): Promise<TestUser> {
  n++;
  return makeUser(h, `${prefix}${n}-${Date.now()}@example.com`);
}

/** Replaces the harness pipeline (not processing) by one built with `o` (e.g. fast heartbeats, handlers). */
export async function replacePipeline(h: Harness, o: PipelineBuildOptions = {}): Promise<Pipeline> {
  const old = h.deps.pipeline;
  await old.stop({ force: true });
  const { pipeline } = createPipelineServices(h.config, h.deps.db, {
    ...PROJECT_STAGES,
    storage: h.deps.storage,
    engines: h.deps.engines,
    tools: h.deps.tools,
    heartbeatMs: 200,
    staleSec: 2,
    sweepEveryMs: 500,
    log: () => {},
    ...o,
  });
  h.deps.pipeline = pipeline;
  return pipeline;
}

/** POST /api/library/media with a local file in the multipart field `file`. */
export async function uploadFile(
  h: Harness,
  u: TestUser,
  path: string,
  o: { kind?: string; spaceId?: string; name?: string; contentType?: string } = {},
) {
  const form = new FormData();
  form.set('file', new Blob([readFileSync(path)], { type: o.contentType ?? 'application/octet-stream' }), o.name ?? basename(path));
  if (o.kind) form.set('kind', o.kind);
  const r = await h.app.request(`/api/library/media?space_id=${o.spaceId ?? u.defaultSpaceId}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${u.token}` },
    body: form,
  });
  const text = await r.text();
  return { status: r.status, json: text ? JSON.parse(text) : null };
}

export async function uploadOk(h: Harness, u: TestUser, path: string, o: { kind?: string; name?: string } = {}): Promise<string> {
  const r = await uploadFile(h, u, path, o);
  expect(r.status, JSON.stringify(r.json)).toBe(200);
  expect(r.json.status, JSON.stringify(r.json)).toBe('uploaded');
  return r.json.id as string;
}

export function srtText(cues: Array<[number, number, string]>): string {
  const t = (s: number) => {
    const ms = Math.round(s * 1000);
    const p = (x: number, w = 2) => String(x).padStart(w, '0');
    return `${p(Math.floor(ms / 3600000))}:${p(Math.floor(ms / 60000) % 60)}:${p(Math.floor(ms / 1000) % 60)},${p(ms % 1000, 3)}`;
  };
  return cues.map(([a, b, text], i) => `${i + 1}\n${t(a)} --> ${t(b)}\n${text}\n`).join('\n');
}

/**
 * POST /api/project/create_transcript through the typed client with a test body: the openapi-fetch result
 * (`.response.status`, `.data`, `.error`; `issuesOf(r.error)` for the 422 issues).
 */
export async function createProject(h: Harness, u: TestUser, body: Record<string, unknown>, spaceId = u.defaultSpaceId) {
  return typedClient(h, u.token).POST('/api/project/create_transcript', {
    params: { query: { space_id: spaceId } },
    // The one cast of the test bodies: callers pass bodies built per test, some deliberately incomplete or wrong
    // (the 422s under test), so the body is not checked here; the answer is typed.
    body: body as components['schemas']['CreateTranscriptRequest'],
  });
}

/** POST /api/project/create_transcript through the typed client: a body the API document takes, the typed answer. */
export async function createTyped(
  h: Harness,
  u: TestUser,
  body: components['schemas']['CreateTranscriptRequest'],
  o: { spaceId?: string; idempotencyKey?: string; token?: string } = {},
) {
  return typedClient(h, o.token ?? u.token).POST('/api/project/create_transcript', {
    params: { query: { space_id: o.spaceId ?? u.defaultSpaceId }, ...(o.idempotencyKey !== undefined ? { header: { 'Idempotency-Key': o.idempotencyKey } } : {}) },
    body,
  });
}

/**
 * A project put straight into `status` with segments and speakers (no pipeline run): for the editing,
 * generate and download calls.
 */
export async function seedProject(
  h: Harness,
  u: TestUser,
  o: {
    mediaId: string;
    status?: ProjectStatus;
    duration?: number;
    segments?: Array<{ start: number; end: number; speaker?: string; src?: string; dst?: string }>;
    name?: string;
    spaceId?: string;
  },
) {
  const r = await typedClient(h, u.token).POST('/api/project/create_transcript', {
    params: { query: { space_id: o.spaceId ?? u.defaultSpaceId } },
    body: { name: o.name ?? 'Seeded', src_lang: 'en', dst_lang: 'es', media_id: o.mediaId },
  });
  expect(r.response.status, JSON.stringify(r.error)).toBe(200);
  const id = r.data!.id;
  const db = h.deps.db;
  const segs = o.segments ?? [
    { start: 0.5, end: 2.5, speaker: 'SPEAKER_0', src: 'Hello there.', dst: 'Hola.' },
    { start: 3, end: 5, speaker: 'SPEAKER_1', src: 'How are you?', dst: '¿Cómo estás?' },
    { start: 5.5, end: 7, speaker: 'SPEAKER_0', src: 'Fine.', dst: 'Bien.' },
  ];
  await insertSegments(db, id, segs.map((s) => ({ start: s.start, end: s.end, speaker: s.speaker ?? 'SPEAKER_0', src: s.src ?? '', dst: s.dst ?? '', status: 'done' })));
  const speakers = [...new Set(segs.map((s) => s.speaker ?? 'SPEAKER_0'))];
  await replaceSpeakers(db, id, speakers.map((s, i) => ({ id: s, name: `Speaker ${i + 1}`, gender: 'male', pitch_hz: 110 })));
  const voices = await h.deps.engines.voices('es');
  for (const s of speakers) await setSpeakerVoice(db, id, s, voices[0]!.id, false);
  await updateProjectFields(db, id, { duration: o.duration ?? 10 });
  await setStatus(db, id, o.status ?? 'translation_done');
  // The create call queued ingest; these projects skip the pipeline.
  await db.query(`DELETE FROM pipeline_jobs WHERE project_id = $1`, [id]);
  return id;
}

export async function jobsOf(h: Harness, projectId: string) {
  return h.deps.db.query<{ id: string; stage: string; state: string; error: string | null }>(
    `SELECT id, stage, state, error FROM pipeline_jobs WHERE project_id = $1 ORDER BY created_at, id`,
    [projectId],
  );
}

/** Polls the project until `until(status)` or the timeout. */
export async function waitForStatus(
  h: Harness,
  u: TestUser,
  id: string,
  until: (status: string) => boolean,
  timeoutMs = 120_000,
): Promise<components['schemas']['Project']> {
  const t0 = Date.now();
  let last: components['schemas']['Project'] | undefined;
  while (Date.now() - t0 < timeoutMs) {
    const r = await typedClient(h, u.token).GET('/api/project/{id}', { params: { path: { id } } });
    last = r.data;
    if (r.response.status === 200 && r.data && until(r.data.status)) return r.data;
    await new Promise((res) => setTimeout(res, 150));
  }
  throw new Error(`project ${id} did not reach the expected status in ${timeoutMs} ms (last: ${JSON.stringify(last?.status)} ${last?.error_message ?? ''})`);
}
