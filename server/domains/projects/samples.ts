// Voice samples for the speakers panel: a short sentence in the voice's language, synthesised by the voice's
// engine on the first play and kept in storage, so each voice is synthesised once per install.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppDeps } from '../../deps';
import type { EngineRegistry } from '../../engines/registry';
import { mediaUrl } from '../../storage/index';
import type { FileGenerator } from '../../storage/generators';
import type { Storage } from '../../storage/types';

export const VOICE_SAMPLE_KIND = 'voice_sample';

const SAMPLE_TEXT: Record<string, string> = {
  en: 'Hello! This is how I sound when I read your video.',
  es: '¡Hola! Así es como sueno cuando leo tu vídeo.',
  ca: 'Hola! Així és com sono quan llegeixo el teu vídeo.',
  fr: 'Bonjour ! Voici comment je sonne quand je lis votre vidéo.',
  de: 'Hallo! So klinge ich, wenn ich dein Video vorlese.',
  it: 'Ciao! Ecco come suono quando leggo il tuo video.',
  pt: 'Olá! É assim que eu soo quando leio o seu vídeo.',
  nl: 'Hallo! Zo klink ik als ik je video voorlees.',
  gl: 'Ola! Así é como soo cando leo o teu vídeo.',
  eo: 'Saluton! Jen kiel mi sonas, kiam mi legas vian videon.',
};

export function sampleText(lang: string): string {
  return SAMPLE_TEXT[lang.toLowerCase().split(/[-_]/)[0] ?? ''] ?? SAMPLE_TEXT.en!;
}

/** Storage key of a voice's sample: stable per engine, voice and language. */
export function sampleKey(engine: string, voiceId: string, lang: string): string {
  const h = createHash('sha256').update(`${engine}\0${voiceId}\0${lang}`).digest('hex').slice(0, 24);
  return `samples/${lang.toLowerCase().replace(/[^a-z0-9-]/g, '')}/${h}.wav`;
}

/** A signed URL that plays the sample, making it on the first request. */
export function sampleUrl(deps: AppDeps, voice: { id: string; engine: string }, lang: string): string {
  return mediaUrl(deps as AppDeps & { storage: Storage }, sampleKey(voice.engine, voice.id, lang), {
    ttlSec: 24 * 3600,
    displayName: 'sample.wav',
    generate: { kind: VOICE_SAMPLE_KIND, args: { voice: voice.id, lang } },
  });
}

/** Makes a voice's sample file on its first request (named by the file tables of server/app/files.ts). */
export const makeVoiceSample: FileGenerator = async (deps, key, args) => {
  const engines = deps.engines as EngineRegistry | undefined;
  const storage = deps.storage as Storage | undefined;
  if (!engines || !storage) throw new Error('Voice samples need the engines and storage');
  const lang = args.lang ?? '';
  const voiceId = args.voice ?? '';
  const tts = await engines.ttsForVoice(voiceId, lang);
  if (!tts) return; // the voice is gone (engine reconfigured): the file route answers 404
  const dir = await mkdtemp(join(tmpdir(), 'ds-sample-'));
  try {
    const out = join(dir, 'sample.wav');
    await tts.synthesize({ text: sampleText(lang), lang, voiceId, rate: 1, outPath: out });
    await storage.putFile(key, out, { contentType: 'audio/wav', move: true });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};
