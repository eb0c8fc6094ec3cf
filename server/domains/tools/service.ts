// The AI rewrite tool (POST /api/tools/summarize): a piece of the script summarised or rewritten by the
// LLM engine of LLM_ENGINE (server/engines/adapters: createOpenAiRewriter). Engine failures become API
// errors whose text is the adapter's own message (already free of keys).
import type * as v from 'valibot';
import type { SummarizeRequest } from '../../../contract/schemas/tools';
import type { AppDeps } from '../../deps';
import { isAdapterError } from '../../engines/adapters/errors';
import type { TextRewriter } from '../../engines/adapters/openai-chat';
import { EngineError } from '../../engines/types';
import { DomainError, unprocessable } from '../../errors';

export const AI_REWRITE_NOT_CONFIGURED =
  'AI rewrite is not configured on this server (set LLM_ENGINE=openai with OPENAI_API_KEY, or OPENAI_CHAT_BASE_URL for a self-hosted OpenAI-compatible server such as Ollama)';
/** Retry-After (seconds) sent when the engine is rate limiting and did not say for how long. */
export const DEFAULT_RETRY_AFTER_SEC = 30;

/** The LLM engine of this server, or null when LLM_ENGINE is none. */
export function rewriterOf(deps: AppDeps): TextRewriter | null {
  return deps.engineAdapters?.rewriter ?? null;
}

/** Whether the AI rewrite tool can work on this server (drives the settings' ai_rewrite feature). */
export function isAiRewriteConfigured(deps: AppDeps): boolean {
  return rewriterOf(deps) !== null;
}

export type SummarizeInput = v.InferOutput<typeof SummarizeRequest>;
type Input = SummarizeInput;

/** What the model is asked to do besides the caller's own instructions. */
export function instructionsFor(req: Pick<Input, 'mode' | 'instructions' | 'lang'>): string | undefined {
  const parts: string[] = [];
  if (req.mode === 'summarize') {
    parts.push('Summarise the text: keep only its main points, as natural spoken language.');
  }
  if (!req.lang) parts.push('Write in the language the text is written in.');
  if (req.instructions) parts.push(req.instructions);
  return parts.length ? parts.join(' ') : undefined;
}

/** Runs the tool. `signal` aborts the engine call (the client went away). */
export async function summarize(deps: AppDeps, req: Input, signal?: AbortSignal): Promise<{ text: string }> {
  const rewriter = rewriterOf(deps);
  if (!rewriter) throw new DomainError('unavailable', AI_REWRITE_NOT_CONFIGURED);
  const instructions = instructionsFor(req);
  try {
    const text = await rewriter.rewrite(
      {
        text: req.text,
        // 'und' (undetermined): the instructions tell the model to keep the text's language.
        lang: req.lang ?? 'und',
        ...(req.max_chars ? { maxChars: req.max_chars } : {}),
        ...(instructions ? { instructions } : {}),
      },
      { signal },
    );
    return { text };
  } catch (e) {
    throw engineFailure(e);
  }
}

/** Maps an engine failure to the API error the caller gets. */
export function engineFailure(e: unknown): unknown {
  if (isAdapterError(e)) {
    if (e.reason === 'rate_limited') {
      // The adapter already retried (honouring Retry-After with capped back-off); tell the client when to come back.
      const asked = /retry after (\d+) s/.exec(e.message);
      const sec = asked ? Number(asked[1]) : DEFAULT_RETRY_AFTER_SEC;
      return new DomainError('unavailable', `${e.message}: please try again later`, { headers: { 'Retry-After': String(sec) } });
    }
    return new DomainError('upstream_failed', e.message);
  }
  if (e instanceof EngineError) {
    if (e.code === 'bad_input') return unprocessable([{ loc: ['body', 'text'], msg: e.message, type: 'value_error' }]);
    return new DomainError('upstream_failed', e.message);
  }
  return e;
}
