// The demo video: real English speech (LibriVox recordings of "Sense and Sensibility" shipped by the Debian
// package pocketsphinx-testdata) over a gradient with the speech's waveform and a title, made with ffmpeg at
// setup (`npm run setup` -> scripts/demo.ts) or, when missing, on first use. Nothing is downloaded. It lives in
// storage under demo/ (outside projects/ and uploads/, so the retention sweep never takes it for an orphan).
import { existsSync } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Config } from '../../config';
import type { Storage } from '../../storage/types';
import { makeCover, makeDemoVideo, placeClips } from '../../media/ffmpeg';
import { probe } from '../../media/probe';
import { wavDurationSec } from '../../media/wav';
import { DomainError } from '../../errors';

export const LIBRIVOX_DIR = '/usr/share/pocketsphinx/test/data/librivox';
/** The sentences of the demo, in order (about 17 s with the pauses). */
const CLIPS = ['0870', '0880', '0890'] as const;
const PAUSE_SEC = 0.7;

export const DEMO = {
  version: 'v1',
  title: 'Sense and Sensibility',
  subtitle: 'Jane Austen, read by a LibriVox volunteer',
  srcLang: 'en',
  /** The name the user's demo project gets. */
  projectName: 'Demo: Sense and Sensibility',
} as const;

export const DEMO_KEYS = {
  source: `demo/${DEMO.version}/source.mp4`,
  cover: `demo/${DEMO.version}/cover.jpg`,
  info: `demo/${DEMO.version}/info.json`,
} as const;

export const DEMO_TEXTS = {
  notInstalled:
    'The demo video is not installed on this server: run `npm run setup` (it makes the demo from the Debian package pocketsphinx-testdata)',
} as const;

export interface DemoSource {
  sourceKey: string;
  coverKey: string;
  durationSec: number;
  sizeBytes: number;
}

function clipPath(id: string): string {
  return join(LIBRIVOX_DIR, `sense_and_sensibility_01_austen_64kb-${id}.wav`);
}

/** The recordings the demo is made from are on this machine. */
export function demoSpeechInstalled(): boolean {
  return CLIPS.every((id) => existsSync(clipPath(id)));
}

async function readInfo(storage: Storage): Promise<DemoSource | null> {
  if (!(await storage.exists(DEMO_KEYS.info)) || !(await storage.exists(DEMO_KEYS.source)) || !(await storage.exists(DEMO_KEYS.cover))) return null;
  try {
    const info = JSON.parse((await storage.getBuffer(DEMO_KEYS.info)).toString('utf8')) as { durationSec: number; sizeBytes: number };
    return { sourceKey: DEMO_KEYS.source, coverKey: DEMO_KEYS.cover, durationSec: info.durationSec, sizeBytes: info.sizeBytes };
  } catch {
    return null;
  }
}

/** Builds the demo video and its cover into storage (replacing what is there). */
export async function buildDemoSource(deps: { config: Pick<Config, 'dataDir'>; storage: Storage }): Promise<DemoSource> {
  if (!demoSpeechInstalled()) throw new DomainError('unavailable', DEMO_TEXTS.notInstalled);
  const dir = join(deps.config.dataDir, 'tmp', `demo-${randomBytes(4).toString('hex')}`);
  await mkdir(dir, { recursive: true });
  try {
    const clips: { path: string; offsetSec: number }[] = [];
    let t = 0.4;
    for (const id of CLIPS) {
      clips.push({ path: clipPath(id), offsetSec: t });
      t += wavDurationSec(clipPath(id)) + PAUSE_SEC;
    }
    const total = Math.round((t - PAUSE_SEC + 0.6) * 1000) / 1000;
    const speech = join(dir, 'speech.wav');
    await placeClips(clips, total, speech, { sampleRate: 16000, channels: 1 });
    const video = join(dir, 'demo.mp4');
    try {
      await makeDemoVideo({ out: video, audio: speech, title: DEMO.title, subtitle: DEMO.subtitle });
    } catch {
      // ffmpeg without drawtext or without a font: the same picture without the title.
      await makeDemoVideo({ out: video, audio: speech });
    }
    const cover = join(dir, 'cover.jpg');
    await makeCover(video, cover, { atSec: Math.min(6, total / 2), maxWidth: 640 });
    const p = await probe(video);
    const { size } = await stat(video);
    await deps.storage.putFile(DEMO_KEYS.source, video, { contentType: 'video/mp4', move: true });
    await deps.storage.putFile(DEMO_KEYS.cover, cover, { contentType: 'image/jpeg', move: true });
    const info: DemoSource = { sourceKey: DEMO_KEYS.source, coverKey: DEMO_KEYS.cover, durationSec: p.durationSec, sizeBytes: size };
    // Written last: its presence says the other two are complete.
    await deps.storage.putBuffer(DEMO_KEYS.info, JSON.stringify({ durationSec: info.durationSec, sizeBytes: info.sizeBytes }), { contentType: 'application/json' });
    return info;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const building = new WeakMap<Storage, Promise<DemoSource>>();

/** The demo video in storage: made at setup, or now (once per process) when it is missing. */
export async function ensureDemoSource(deps: { config: Pick<Config, 'dataDir'>; storage: Storage }): Promise<DemoSource> {
  const ready = await readInfo(deps.storage);
  if (ready) return ready;
  let p = building.get(deps.storage);
  if (!p) {
    p = buildDemoSource(deps).finally(() => building.delete(deps.storage));
    building.set(deps.storage, p);
  }
  return p;
}
