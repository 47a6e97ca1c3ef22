// The secrets published in the Workers' `.dev.vars.example` files (and the README's development
// credentials): anyone can read them, so a Worker outside local development refuses to run with
// one (parseConfig in config.ts). test/scripts/development-values.test.ts keeps this list equal to
// the values of those files; ADMIN_USERNAME (`admin`) is left out, being a name, not a secret.
export const PUBLISHED_DEVELOPMENT_VALUES: ReadonlySet<string> = new Set([
  // auth
  'dev-client-secret',
  'dev-token-secret-change-me-in-production-0123456789',
  'ZGV2LXRvdHAta2V5LTMyLWJ5dGVzLWxvbmctLS0tLS0=',
  // stats, form, cms, migrate: the embedded racing database
  'postgres://postgres:postgres@127.0.0.1:54329/postgres',
  // stats
  'dev-static-token',
  'admin-dev-password',
  // form
  'dev-only-form-session-secret-change-me-0123456789',
  // cms
  'dev-only-cms-session-secret-change-me-0123456789',
  // migrate
  'dev-only-migrate-session-secret-change-me-0123',
  'dev-only-migrate-config-key-change-me-012345',
  // mail
  'dev-only-mail-session-secret-change-me-0123456789',
  'dev-only-mail-token-secret-change-me-0123456789',
  'mail-assistant-dev',
]);
