import type { z } from 'zod';
import { HttpError } from './http-error.ts';

/** A Worker started without a variable or secret it needs: said plainly, values never echoed. */
export class ConfigError extends HttpError {
  constructor(readonly problems: string[]) {
    super(500, 'configuration_error', `The service is misconfigured: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** Validates a Worker's env against its schema; called once per request by the middleware that needs it. */
export function parseConfig<S extends z.ZodType>(schema: S, env: unknown): z.output<S> {
  const result = schema.safeParse(env ?? {});
  if (result.success) return result.data;
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || 'env';
      return issue.code === 'invalid_type' && issue.input === undefined ? `${name} is not set` : `${name}: ${issue.message}`;
    }),
  );
}
