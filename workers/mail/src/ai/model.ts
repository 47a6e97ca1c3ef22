import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { type LanguageModel, generateText } from 'ai';
import type { MailConfig } from '../config.ts';
import { type TaskKind, offlineAnswer } from './offline.ts';
import { isWorkersAiBinding, workersAiModel } from './workers-ai.ts';

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
  /** The token figures are estimates (a quarter of the characters): the backend reported no usage. */
  tokensEstimated: boolean;
}

/** The one interface every backend implements. */
export interface Model {
  /** `offline`, `workers-ai:<model>` or `openai:<model>`: what the trace and the README show. */
  readonly name: string;
  /** `template`: the offline backend's fixed rules (template replies, keyword categories), never called AI. */
  readonly kind: 'template' | 'language-model';
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

export const estimateTokens = (s: string) => Math.ceil(s.length / 4);

/** Deterministic, no network: see offline.ts. */
export const offlineModel: Model = {
  name: 'offline',
  kind: 'template',
  async generate(request) {
    const text = offlineAnswer(request.system, request.user);
    return {
      text,
      tokensIn: estimateTokens(request.system) + estimateTokens(request.user),
      tokensOut: estimateTokens(text),
      tokensEstimated: true,
    };
  },
};

/** What the offline backend's output of a task is (it reads no meaning: rules and templates). */
const TEMPLATE_OUTPUT: Record<TaskKind, string> = {
  reply: 'template reply',
  classify: 'keyword category',
  summarise: 'first-sentences summary',
  thread: 'first-sentences summary',
  extract: 'pattern extraction',
};

/** What a model's output of a task is called where it is shown: a template's is never "AI". */
export const outputName = (model: Model, task: TaskKind): string =>
  model.kind === 'template'
    ? TEMPLATE_OUTPUT[task]
    : `AI ${task === 'classify' ? 'category' : task === 'reply' ? 'reply' : task === 'extract' ? 'extraction' : 'summary'} (${model.name})`;

/** The model as the dashboard names it. */
export const modelTitle = (model: Model): string =>
  model.kind === 'template' ? 'offline: template replies and keyword categories (no language model)' : model.name;

/** A backend of the AI SDK (Workers AI or an OpenAI-compatible endpoint). */
function sdkModel(name: string, model: LanguageModel, config: MailConfig): Model {
  return {
    name,
    kind: 'language-model',
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
        const { inputTokens, outputTokens } = result.usage;
        if (inputTokens !== undefined && outputTokens !== undefined)
          return { text: result.text, tokensIn: inputTokens, tokensOut: outputTokens, tokensEstimated: false };
        return {
          text: result.text,
          tokensIn: estimateTokens(request.system) + estimateTokens(request.user),
          tokensOut: estimateTokens(result.text),
          tokensEstimated: true,
        };
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
      if (!isWorkersAiBinding(env.AI))
        return unconfigured('MAIL_MODEL=workers-ai needs the AI binding ([ai] binding = "AI" in wrangler.toml).');
      return workersAiModel(env.AI, config);
    }
    case 'openai': {
      if (!config.OPENAI_BASE_URL || !config.OPENAI_MODEL) return unconfigured('MAIL_MODEL=openai needs OPENAI_BASE_URL and OPENAI_MODEL.');
      const provider = createOpenAICompatible({
        name: 'openai-compatible',
        baseURL: config.OPENAI_BASE_URL,
        apiKey: config.OPENAI_API_KEY,
      });
      return sdkModel(`openai:${config.OPENAI_MODEL}`, provider.chatModel(config.OPENAI_MODEL), config);
    }
  }
}

function unconfigured(message: string): Model {
  return {
    name: 'unconfigured',
    kind: 'language-model',
    async generate() {
      throw new ModelError('unconfigured', message);
    },
  };
}
