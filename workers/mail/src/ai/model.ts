import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type LanguageModel, generateText } from 'ai';
import { createWorkersAI } from 'workers-ai-provider';
import type { MailConfig } from '../config.ts';
import { offlineAnswer } from './offline.ts';

/** One call to the language model: a system prompt and a user message, text back. */
export interface ModelRequest {
  system: string;
  user: string;
  maxTokens?: number;
}

export interface ModelAnswer {
  text: string;
  tokensIn: number;
  tokensOut: number;
}

/** The one interface every backend implements. */
export interface Model {
  /** `offline`, `workers-ai:<model>` or `openai:<model>`: what the trace and the README show. */
  readonly name: string;
  generate(request: ModelRequest, signal: AbortSignal): Promise<ModelAnswer>;
}

/** The model failed (error, timeout, unusable answer): reported as 502, never as a 500. */
export class ModelError extends Error {
  constructor(
    readonly kind: 'unavailable' | 'timeout' | 'malformed' | 'unconfigured',
    message: string,
  ) {
    super(message);
    this.name = 'ModelError';
  }
}

const estimateTokens = (s: string) => Math.ceil(s.length / 4);

/** Deterministic, no network: see offline.ts. */
export const offlineModel: Model = {
  name: 'offline',
  async generate(request) {
    const text = offlineAnswer(request.system, request.user);
    return { text, tokensIn: estimateTokens(request.system) + estimateTokens(request.user), tokensOut: estimateTokens(text) };
  },
};

/** A backend of the AI SDK (Workers AI or an OpenAI-compatible endpoint). */
function sdkModel(name: string, model: LanguageModel, config: MailConfig): Model {
  return {
    name,
    async generate(request, signal) {
      try {
        const result = await generateText({
          model,
          system: request.system,
          prompt: request.user,
          maxOutputTokens: request.maxTokens ?? config.MODEL_MAX_TOKENS,
          temperature: 0,
          // The caller decides on retries (structured answers are retried once).
          maxRetries: 0,
          abortSignal: signal,
        });
        return { text: result.text, tokensIn: result.usage.inputTokens ?? 0, tokensOut: result.usage.outputTokens ?? 0 };
      } catch (err) {
        if (signal.aborted) throw new ModelError('timeout', `The model did not answer within ${config.MODEL_TIMEOUT_MS} ms.`);
        const message = err instanceof Error ? err.message : String(err);
        throw new ModelError('unavailable', `The model failed: ${message.slice(0, 300)}`);
      }
    },
  };
}

/** The backend the configuration names (MAIL_MODEL). */
export function createModel(config: MailConfig, env: { AI?: unknown }): Model {
  switch (config.MAIL_MODEL) {
    case 'offline':
      return offlineModel;
    case 'workers-ai': {
      if (!env.AI) return unconfigured('MAIL_MODEL=workers-ai needs the AI binding ([ai] binding = "AI" in wrangler.toml).');
      const workersai = createWorkersAI({ binding: env.AI as Ai });
      return sdkModel(`workers-ai:${config.WORKERS_AI_MODEL}`, workersai(config.WORKERS_AI_MODEL as Parameters<typeof workersai>[0]), config);
    }
    case 'openai': {
      if (!config.OPENAI_BASE_URL || !config.OPENAI_MODEL) return unconfigured('MAIL_MODEL=openai needs OPENAI_BASE_URL and OPENAI_MODEL.');
      const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL: config.OPENAI_BASE_URL, apiKey: config.OPENAI_API_KEY });
      return sdkModel(`openai:${config.OPENAI_MODEL}`, provider.chatModel(config.OPENAI_MODEL), config);
    }
  }
}

function unconfigured(message: string): Model {
  return {
    name: 'unconfigured',
    async generate() {
      throw new ModelError('unconfigured', message);
    },
  };
}
