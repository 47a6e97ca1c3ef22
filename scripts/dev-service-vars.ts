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
      // Workers AI runs only at Cloudflare: locally the offline model (templates, keywords).
      MAIL_MODEL: 'offline',
    },
  };
}

/** The same as `wrangler dev` arguments. */
export const asVarFlags = (vars: Record<string, string>): string[] =>
  Object.entries(vars).flatMap(([name, value]) => ['--var', `${name}:${value}`]);
