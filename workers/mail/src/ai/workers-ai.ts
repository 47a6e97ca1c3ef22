import { z } from 'zod';
import type { MailConfig } from '../config.ts';
import { type Model, ModelError, estimateTokens } from './model.ts';

/**
 * The part of the Workers AI binding (`env.AI`) this service calls: a text-generation model with
 * chat messages, `run(model, { messages, max_tokens }, { signal })`.
 */
export interface WorkersAiBinding {
  run(
    model: string,
    inputs: { messages: { role: 'system' | 'user'; content: string }[]; max_tokens: number; temperature?: number },
    options?: { signal?: AbortSignal },
  ): Promise<unknown>;
}

export const isWorkersAiBinding = (value: unknown): value is WorkersAiBinding =>
  typeof value === 'object' && value !== null && 'run' in value && typeof value.run === 'function';

const Usage = z.object({
  prompt_tokens: z.number().int().min(0),
  completion_tokens: z.number().int().min(0),
  total_tokens: z.number().int().min(0).optional(),
});
// Text-generation models answer `{response, usage?}`; the OpenAI-shaped ones `{choices: [{message: {content}}], usage?}`.
const Output = z.union([
  z.object({ response: z.string(), usage: Usage.optional() }),
  z.object({ choices: z.array(z.object({ message: z.object({ content: z.string() }) })).min(1), usage: Usage.optional() }),
]);

/** Workers AI through its binding; tokens as the model reports them, estimated (and said so) when it does not. */
export function workersAiModel(binding: WorkersAiBinding, config: MailConfig): Model {
  return {
    name: `workers-ai:${config.WORKERS_AI_MODEL}`,
    kind: 'language-model',
    async generate(request, signal) {
      let output: unknown;
      try {
        output = await binding.run(
          config.WORKERS_AI_MODEL,
          {
            messages: [
              { role: 'system', content: request.system },
              { role: 'user', content: request.user },
            ],
            max_tokens: request.maxTokens ?? config.MODEL_MAX_TOKENS,
            temperature: 0,
          },
          { signal },
        );
      } catch (err) {
        if (signal.aborted) throw new ModelError('timeout', `The model did not answer within ${config.MODEL_TIMEOUT_MS} ms.`);
        throw new ModelError('unavailable', `Workers AI failed: ${(err instanceof Error ? err.message : String(err)).slice(0, 300)}`);
      }
      const parsed = Output.safeParse(output);
      if (!parsed.success) throw new ModelError('malformed', 'Workers AI answered without a text response.');
      const text = 'response' in parsed.data ? parsed.data.response : parsed.data.choices[0]!.message.content;
      const usage = parsed.data.usage;
      if (usage) return { text, tokensIn: usage.prompt_tokens, tokensOut: usage.completion_tokens, tokensEstimated: false };
      return {
        text,
        tokensIn: estimateTokens(request.system) + estimateTokens(request.user),
        tokensOut: estimateTokens(text),
        tokensEstimated: true,
      };
    },
  };
}
