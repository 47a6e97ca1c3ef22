import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Concerns with one implementation in workers/shared/ (README, "Shared modules"): a service that
// writes its own again fails here.

const ROOT = join(import.meta.dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name.startsWith('.') ? [] : sourceFiles(path);
    return /\.(ts|tsx|mts)$/.test(entry.name) ? [path] : [];
  });
}

/**
 * Not at-rest sealing: the authentication service's own token format (encrypt-then-MAC bearer
 * tokens) and its TOTP secrets under a raw 32-byte key (AUTH_TOTP_ENCRYPTION_KEY), which it alone
 * reads and which predate the shared module's derived keys.
 */
const OWN_AES_GCM = new Set(['workers/auth/src/tokens.ts', 'workers/auth/src/totp.ts']);

const serviceFiles = () => ['workers', 'durable-objects'].flatMap(sourceFiles).filter((file) => !file.startsWith('workers/shared/'));

/** Which rules a file's text breaks. */
function violations(file: string, text: string): string[] {
  const found: string[] = [];
  if (/['"]hono\/body-limit['"]/.test(text)) found.push(`${file}: imports hono/body-limit (use limitBody from #shared/body.ts)`);
  if (/crypto\.subtle\.(encrypt|decrypt)\(/.test(text) && !OWN_AES_GCM.has(file))
    found.push(`${file}: AES-GCM of its own (use #shared/sealing.ts)`);
  if (/\/auth-client\.tsx?$/.test(file)) found.push(`${file}: an auth client of its own (use #shared/auth-client.ts)`);
  if (/['"]\/api\/(token\/refresh|verify-2fa|token\/revoke)\/['"]/.test(text) && !file.startsWith('workers/auth/')) {
    found.push(`${file}: calls the authentication service itself (use #shared/auth-client.ts)`);
  }
  if (/['"](\.\.?\/)+[^'"]*auth-client(\.ts)?['"]/.test(text)) found.push(`${file}: imports a local auth client`);
  if (/['"]hono\/csrf['"]/.test(text) || /header\(\s*['"]origin['"]\s*\)/i.test(text))
    found.push(`${file}: an anti-forgery check of its own (use #shared/anti-forgery.ts)`);
  return found;
}

describe('one implementation per concern, in workers/shared/', () => {
  it('no service file imports hono/body-limit, seals with AES-GCM itself, has its own auth client or anti-forgery check', () => {
    const files = serviceFiles();
    expect(files.length).toBeGreaterThan(100);
    const found = files.flatMap((file) => violations(file, readFileSync(join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds each of them', () => {
    expect(violations('workers/mail/src/app.ts', "import { bodyLimit } from 'hono/body-limit';")).toHaveLength(1);
    expect(violations('workers/cms/src/session.ts', 'await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, data)')).toHaveLength(1);
    expect(violations('workers/auth/src/totp.ts', 'await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, data)')).toEqual([]);
    expect(violations('workers/migrate/src/auth-client.ts', '')).toHaveLength(1);
    expect(violations('workers/mail/src/login.ts', "await c.env.AUTH.fetch('https://auth.internal' + '/api/token/refresh/')")).toHaveLength(
      1,
    );
    expect(violations('workers/mail/src/routes/login.ts', "import { startLogin } from '../auth-client.ts';")).toHaveLength(1);
    expect(violations('workers/mail/src/routes/login.ts', "import { startLogin } from '#shared/auth-client.ts';")).toEqual([]);
    expect(violations('workers/auth/src/routes/dashboard/session.ts', "import { csrf } from 'hono/csrf';")).toHaveLength(1);
    expect(violations('workers/cms/src/guards.ts', "const origin = c.req.header('origin');")).toHaveLength(1);
    expect(violations('workers/cms/src/guards.ts', "import { antiForgery } from '#shared/anti-forgery.ts';")).toEqual([]);
  });

  it('the shared modules exist', () => {
    for (const module of [
      'auth-client.ts',
      'sealing.ts',
      'errors.ts',
      'body.ts',
      'security-headers.ts',
      'config.ts',
      'anti-forgery.ts',
      'd1-sessions.ts',
    ]) {
      expect(() => readFileSync(join(ROOT, 'workers/shared', module))).not.toThrow();
    }
  });
});
