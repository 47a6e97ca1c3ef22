import type { z } from 'zod';
import { PUBLISHED_DEVELOPMENT_VALUES } from './development-values.ts';
import { HttpError } from './http-error.ts';
import { isLocalDevelopment } from './local-development.ts';

/** A Worker started without a variable or secret it needs: said plainly, values never echoed. */
export class ConfigError extends HttpError {
  constructor(readonly problems: string[]) {
    super(500, 'configuration_error', `The service is misconfigured: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

/** The settings of `data` whose value in `env` is a published development secret. */
function developmentValuesIn(data: unknown, env: unknown): string[] {
  if (typeof data !== 'object' || data === null || typeof env !== 'object' || env === null) return [];
  return Object.keys(data).filter((name) => {
    const raw: unknown = Reflect.get(env, name);
    return typeof raw === 'string' && PUBLISHED_DEVELOPMENT_VALUES.has(raw);
  });
}

/**
 * Validates a Worker's env against its schema; called once per request by the middleware that
 * needs it. Outside local development a setting holding a published development secret (a value
 * of a `.dev.vars.example`) is refused as well: such a Worker would accept credentials anyone has.
 */
export function parseConfig<S extends z.ZodType>(schema: S, env: unknown): z.output<S> {
  const result = schema.safeParse(env ?? {});
  if (result.success) {
    const published = isLocalDevelopment(env) ? [] : developmentValuesIn(result.data, env);
    if (published.length) {
      throw new ConfigError(published.map((name) => `${name} is a published development value (.dev.vars.example), refused outside local development: put a secret of its own (wrangler secret put ${name})`));
    }
    return result.data;
  }
  throw new ConfigError(
    result.error.issues.map((issue) => {
      const name = issue.path.join('.') || 'env';
      return issue.code === 'invalid_type' && issue.input === undefined ? `${name} is not set` : `${name}: ${issue.message}`;
    }),
  );
}
