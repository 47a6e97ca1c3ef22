import { z } from 'zod';
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
      throw new ConfigError(
        published.map(
          (name) =>
            `${name} is a published development value (.dev.vars.example), refused outside local development: put a secret of its own (wrangler secret put ${name})`,
        ),
      );
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

/** A comma-separated setting as its entries: each trimmed, empty ones dropped. */
export function commaList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** A zod setting holding a comma-separated list (`fallback` when unset); `normalise` applies to each entry. */
export const commaListSetting = (fallback = '', normalise: (entry: string) => string = (entry) => entry) =>
  z
    .string()
    .default(fallback)
    .transform((text) => commaList(text).map(normalise));

/** A host name or address without IPv6 brackets, lower case: `[::1]` and `::1` are the same host. */
function hostName(host: string): string {
  const name = host.trim().toLowerCase();
  return name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
}

/**
 * An allow-list entry: `host` (any port), `host:port`, `[ipv6]` (any port) or `[ipv6]:port`. A bare
 * entry with more than one colon is an IPv6 address without a port (`::1`); a port on an IPv6
 * address needs the brackets, as in a URL. Undefined for anything else.
 */
function parseHostEntry(entry: string): { host: string; port?: number } | undefined {
  const text = entry.trim().toLowerCase();
  const bracketed = /^\[([0-9a-f:.]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return { host: bracketed[1]!, ...(bracketed[2] ? { port: Number(bracketed[2]) } : {}) };
  if ((text.match(/:/g) ?? []).length > 1) return /^[0-9a-f:.]+$/.test(text) ? { host: text } : undefined;
  const named = /^([^:\s[\]]+)(?::(\d{1,5}))?$/.exec(text);
  if (!named) return undefined;
  return { host: named[1]!, ...(named[2] ? { port: Number(named[2]) } : {}) };
}

/** True when `host:port` is on the allow-list (entries as `parseHostEntry` reads them). An empty list allows nothing. */
export function hostAllowed(allowed: readonly string[], host: string, port: number): boolean {
  const wanted = hostName(host);
  return allowed.some((entry) => {
    const parsed = parseHostEntry(entry);
    return parsed !== undefined && parsed.host === wanted && (parsed.port === undefined || parsed.port === port);
  });
}
