// What `npm run dev` gives two services beyond their wrangler.toml and .dev.vars: the migration app
// may reach the legacy source database and nothing else (and copies by statements when the racing
// database is the embedded one, which cannot take COPY … FROM STDIN); the mail assistant talks to
// the Microsoft Graph stand-in and connects its seeded mailbox by itself. The dev runner
// (scripts/dev.ts), the Deno host (deno/host/main.ts) and the tests' workerd services
// (test/support/workerd-services.ts) all take them from here.

export interface DevServiceVarsOptions {
  /** `postgres://user:password@host:port/database` of the legacy source. */
  legacyDatabaseUrl: string;
  /** The racing database is the embedded PGlite (no DATABASE_URL given). */
  embeddedRacingDatabase: boolean;
  /** The stand-in's origin: the identity platform at its root, Graph under /v1.0. */
  graphStandin: string;
  /** workers/mail/.dev.vars (its MAIL_MODEL, OPENAI_BASE_URL, OPENAI_MODEL choose the local model). */
  mailDevVars?: Record<string, string>;
}

export function devServiceVars(options: DevServiceVarsOptions): { migrate: Record<string, string>; mail: Record<string, string> } {
  const legacy = new URL(options.legacyDatabaseUrl);
  const standin = options.graphStandin.replace(/\/+$/, '');
  return {
    migrate: {
      MIGRATE_ALLOWED_HOSTS: `${legacy.hostname}:${legacy.port || 5432}`,
      ...(options.embeddedRacingDatabase ? { MIGRATE_DIRECT_COPY: 'off' } : {}),
    },
    mail: {
      GRAPH_BASE_URL: `${standin}/v1.0`,
      IDENTITY_BASE_URL: standin,
      MAIL_DEV_AUTO_CONNECT: 'true',
      MAIL_ASSISTANT_ADMINS: 'demo@example.com',
      ...localMailModel(options.mailDevVars ?? {}, standin),
    },
  };
}

/**
 * The assistant's model locally, as workers/mail/.dev.vars chooses it (passed as vars: a
 * wrangler.toml with `secrets.required` loads only the secrets it names from .dev.vars). Workers
 * AI runs only at Cloudflare, so locally: `offline` (the default: template replies, keyword
 * categories) or `openai` — the stand-in's OpenAI-compatible endpoint unless OPENAI_BASE_URL
 * names another (with OPENAI_API_KEY for it).
 */
export function localMailModel(devVars: Record<string, string>, standin: string): Record<string, string> {
  const model = devVars.MAIL_MODEL || 'offline';
  if (model === 'offline') return { MAIL_MODEL: 'offline' };
  if (model !== 'openai')
    throw new Error(
      `workers/mail/.dev.vars: MAIL_MODEL=${model} cannot run locally; use "offline" or "openai" (Workers AI runs only at Cloudflare)`,
    );
  return {
    MAIL_MODEL: 'openai',
    OPENAI_BASE_URL: devVars.OPENAI_BASE_URL || `${standin}/v1`,
    OPENAI_MODEL: devVars.OPENAI_MODEL || 'standin-chat',
    ...(devVars.OPENAI_API_KEY ? { OPENAI_API_KEY: devVars.OPENAI_API_KEY } : {}),
  };
}

/** The same as `wrangler dev` arguments. */
export const asVarFlags = (vars: Record<string, string>): string[] =>
  Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
