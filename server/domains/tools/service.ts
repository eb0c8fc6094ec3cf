// The AI rewrite tool (POST /api/tools/summarize): a piece of the script summarised or rewritten by the
// LLM engine of LLM_ENGINE (server/engines/adapters: createOpenAiRewriter). Engine failures become API
// errors whose text is the adapter's own message (already free of keys).
import * as v from 'valibot';
import { SummarizeRequest } from '../../../contract/schemas/tools';
import type { PlanTier } from '../../../contract/features';
import type { AppDeps } from '../../deps';
import { isAdapterError, type TextRewriter } from '../../engines/adapters/index';
import { EngineError } from '../../engines/types';
import { ApiError, unprocessable } from '../../http/errors';
import { isFeatureEnabled } from '../billing/plan';

export const AI_REWRITE_NOT_CONFIGURED =
  'AI rewrite is not configured on this server (set LLM_ENGINE=openai with OPENAI_API_KEY, or OPENAI_CHAT_BASE_URL for a self-hosted OpenAI-compatible server such as Ollama)';
export const AI_REWRITE_NOT_IN_PLAN = 'AI rewrite is available from the Creator Pro plan';
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

/** Spec: AI rewrite comes with Creator Pro and above (the settings' ai_rewrite feature). */
export function checkPlan(tier: PlanTier, isSuperuser: boolean): void {
  if (!isSuperuser && !isFeatureEnabled(tier, 'ai_rewrite')) throw new ApiError(403, AI_REWRITE_NOT_IN_PLAN);
}

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
  if (!rewriter) throw new ApiError(503, AI_REWRITE_NOT_CONFIGURED);
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
      return new ApiError(503, `${e.message}: please try again later`, { 'Retry-After': String(sec) });
    }
    return new ApiError(502, e.message);
  }
  if (e instanceof EngineError) {
    if (e.code === 'bad_input') return unprocessable([{ loc: ['body', 'text'], msg: e.message, type: 'value_error' }]);
    return new ApiError(502, e.message);
  }
  return e;
}
