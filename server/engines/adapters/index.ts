// HTTP engine adapters and their wiring into the engine registry. The configured adapter of each
// kind is registered in front of the built-in engine, so the registry's asrFor/mtFor/ttsFor pick it
// for every language it has and fall back to the built-in engine for the others.
import { createEngineRegistry, type EngineRegistry } from '../registry';
import type { AsrEngine, LipsyncEngine, MtEngine, TtsEngine } from '../types';
import type { EngineConfig } from '../config';
import { loadEngineConfig } from '../config';
import { createDeepLMt, type DeepLEngine } from './deepl';
import { createElevenLabsTts, type ElevenLabsEngine } from './elevenlabs';
import { createSyncLipsync } from './sync';
import type { SharedHttpOptions } from './openai';
import { createOpenAiAsr } from './openai-asr';
import { createOpenAiMt, createOpenAiRewriter, type TextRewriter } from './openai-chat';
import { createOpenAiTts } from './openai-tts';


export interface ConfiguredAdapters {
  asr: AsrEngine | null;
  mt: MtEngine | null;
  tts: TtsEngine | null;
  /** The AI rewrite tool's engine (LLM_ENGINE), null when none is configured. */
  rewriter: TextRewriter | null;
  /** The ElevenLabs engine when TTS_ENGINE=elevenlabs (voice cloning for the voice clone library). */
  voiceCloner: ElevenLabsEngine | null;
  /** The DeepL engine when MT_ENGINE=deepl (glossary management). */
  deepl: DeepLEngine | null;
  /** The hosted lip-sync engine when LIPSYNC_ENGINE=sync. */
  lipsync: LipsyncEngine | null;
}

/** Builds the adapters the configuration selects. `http` overrides timeouts/retries (tests). */
export function createAdapters(cfg: EngineConfig, http: SharedHttpOptions = {}): ConfiguredAdapters {
  const h: SharedHttpOptions = { timeoutMs: cfg.http.timeoutMs, retry: { maxAttempts: cfg.http.maxAttempts }, ...http };
  const asr = cfg.asr === 'openai' ? createOpenAiAsr({ ...cfg.openai.asr, http: h }) : null;
  let mt: MtEngine | null = null;
  let deepl: DeepLEngine | null = null;
  if (cfg.mt === 'openai') mt = createOpenAiMt({ ...cfg.openai.chat, http: h });
  if (cfg.mt === 'deepl' && cfg.deepl) mt = deepl = createDeepLMt({ ...cfg.deepl, http: h });
  let tts: TtsEngine | null = null;
  let voiceCloner: ElevenLabsEngine | null = null;
  if (cfg.tts === 'openai') tts = createOpenAiTts({ ...cfg.openai.tts, http: h });
  if (cfg.tts === 'elevenlabs' && cfg.elevenlabs) tts = voiceCloner = createElevenLabsTts({ ...cfg.elevenlabs, http: h });
  const rewriter = cfg.llm === 'openai' ? createOpenAiRewriter({ ...cfg.openai.chat, http: h }) : null;
  const lipsync =
    cfg.lipsync === 'sync' && cfg.sync
      ? createSyncLipsync({ ...cfg.sync, http: h })
      : null;
  return { asr, mt, tts, rewriter, voiceCloner, deepl, lipsync };
}

/** Registers the configured adapters in front of the built-in engines. */
export function registerAdapters(registry: EngineRegistry, adapters: ConfiguredAdapters): void {
  if (adapters.asr) registry.register('asr', adapters.asr, { prefer: true });
  if (adapters.mt) registry.register('mt', adapters.mt, { prefer: true });
  if (adapters.tts) registry.register('tts', adapters.tts, { prefer: true });
  if (adapters.lipsync) registry.register('lipsync', adapters.lipsync, { prefer: true });
}

/**
 * The registry for this configuration: built-in engines plus the configured adapters, preferred
 * per kind, with per-language fallback to the built-ins. Throws EngineConfigError on a bad config.
 */
export function createConfiguredRegistry(
  env: Record<string, string | undefined> | EngineConfig = process.env,
  o: { http?: SharedHttpOptions } = {},
): { registry: EngineRegistry; config: EngineConfig; adapters: ConfiguredAdapters } {
  const config = isEngineConfig(env) ? env : loadEngineConfig(env);
  const registry = createEngineRegistry(config.registry);
  const adapters = createAdapters(config, o.http);
  registerAdapters(registry, adapters);
  return { registry, config, adapters };
}

function isEngineConfig(x: unknown): x is EngineConfig {
  return !!x && typeof x === 'object' && 'registry' in x && 'openai' in x;
}
