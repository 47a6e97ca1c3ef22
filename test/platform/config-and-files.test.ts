import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '#shared/config.ts';
import { PUBLISHED_DEVELOPMENT_VALUES } from '#shared/development-values.ts';
import { contentDisposition, fileHeaders, isInlineType } from '#shared/downloads.ts';
import { isLocalDevelopment } from '#shared/local-development.ts';

// Two shared rules: a published development secret is refused outside local development
// (config.ts, local-development.ts), and a served file is shown as itself only when its type is
// on the inline allow-list (downloads.ts).

const schema = z.object({ SESSION_SECRET: z.string().min(32), PG_WS_PROXY: z.string().optional(), NAME: z.string().default('') });
const DEV_SECRET = 'dev-only-cms-session-secret-change-me-0123456789';

describe('published development secrets', () => {
  it('are refused outside local development, naming the setting and never the value', () => {
    for (const proxy of [
      undefined,
      '',
      'ws://relay.example:8790',
      'wss://10.0.0.5/v1',
      'not a url at all',
      'ws://127.0.0.1.evil.example:1',
    ]) {
      let error: unknown;
      try {
        parseConfig(schema, { SESSION_SECRET: DEV_SECRET, PG_WS_PROXY: proxy });
      } catch (err) {
        error = err;
      }
      expect(error, String(proxy)).toBeInstanceOf(ConfigError);
      const { message, status, code } = error as ConfigError;
      expect([status, code]).toEqual([500, 'configuration_error']);
      expect(message).toMatch(
        /SESSION_SECRET is a published development value \(\.dev\.vars\.example\), refused outside local development/,
      );
      expect(message).not.toContain(DEV_SECRET);
    }
  });

  it('are accepted in local development: a Postgres relay on loopback', () => {
    for (const proxy of ['ws://127.0.0.1:8790', '127.0.0.1:8790', 'ws://localhost:54321', 'ws://[::1]:8790', 'wss://relay.localhost/v1']) {
      expect(parseConfig(schema, { SESSION_SECRET: DEV_SECRET, PG_WS_PROXY: proxy }).SESSION_SECRET, proxy).toBe(DEV_SECRET);
      expect(isLocalDevelopment({ PG_WS_PROXY: proxy }), proxy).toBe(true);
    }
  });

  it('every published value is refused; a secret of its own is not; names outside the schema are not looked at', () => {
    for (const value of PUBLISHED_DEVELOPMENT_VALUES) {
      expect(() => parseConfig(z.object({ ANY: z.string() }), { ANY: value }), value).toThrowError(/ANY is a published development value/);
    }
    expect(parseConfig(schema, { SESSION_SECRET: 'a-secret-of-its-own-0123456789abcdef' }).SESSION_SECRET).toBe(
      'a-secret-of-its-own-0123456789abcdef',
    );
    expect(parseConfig(schema, { SESSION_SECRET: 'a-secret-of-its-own-0123456789abcdef', OTHER: DEV_SECRET }).NAME).toBe('');
    expect(isLocalDevelopment(undefined)).toBe(false);
    expect(isLocalDevelopment({ PG_WS_PROXY: 8790 })).toBe(false);
  });
});

describe('served files', () => {
  const SANDBOX = { 'Content-Security-Policy': "sandbox; default-src 'none'", 'X-Content-Type-Options': 'nosniff' };

  it('anything off the inline allow-list is an octet-stream download', () => {
    for (const type of [
      'text/html',
      'TEXT/HTML; charset=utf-8',
      'image/svg+xml',
      'application/xhtml+xml',
      'text/xml',
      'application/xml',
      'text/javascript',
      'application/javascript',
      'application/ecmascript',
      'application/x-shockwave-flash',
      'multipart/related',
      'message/rfc822',
      'application/json',
      'text/vtt',
      'image/jpg',
      '',
      'nonsense',
      'text/plain\u0000/html',
    ]) {
      expect(isInlineType(type), type).toBe(false);
      expect(fileHeaders(type, { name: 'x.bin' }), type).toEqual({
        'Content-Type': 'application/octet-stream',
        'Content-Disposition': `attachment; filename="x.bin"; filename*=UTF-8''x.bin`,
        ...SANDBOX,
      });
    }
  });

  it('allow-listed types keep their type, inline unless the route asks for a download; text gets a charset', () => {
    expect(fileHeaders('image/png')).toEqual({ 'Content-Type': 'image/png', 'Content-Disposition': 'inline', ...SANDBOX });
    expect(fileHeaders('Application/PDF', { name: 'card.pdf', disposition: 'attachment' })['Content-Type']).toBe('application/pdf');
    expect(fileHeaders('application/pdf', { name: 'card.pdf', disposition: 'attachment' })['Content-Disposition']).toBe(
      `attachment; filename="card.pdf"; filename*=UTF-8''card.pdf`,
    );
    expect(fileHeaders('text/plain')['Content-Type']).toBe('text/plain; charset=utf-8');
    expect(fileHeaders('text/csv; charset=ISO-8859-1')['Content-Type']).toBe('text/csv; charset=iso-8859-1');
    expect(fileHeaders('text/plain; charset=utf-7')['Content-Type']).toBe('text/plain; charset=utf-8');
    expect(fileHeaders('video/mp4')['Content-Type']).toBe('video/mp4');
  });

  it('file names stay inside their header', () => {
    expect(contentDisposition('attachment', 'Race "card"\r\nSet-Cookie: x=1.pdf')).toBe(
      `attachment; filename="Race _card_Set-Cookie_ x_1.pdf"; filename*=UTF-8''Race%20%22card%22%0D%0ASet-Cookie%3A%20x%3D1.pdf`,
    );
    expect(contentDisposition('attachment', "Flemington's (R1).pdf")).toBe(
      `attachment; filename="Flemington_s (R1).pdf"; filename*=UTF-8''Flemington%27s%20%28R1%29.pdf`,
    );
    expect(contentDisposition('attachment', '∞')).toBe('attachment; filename="_"; filename*=UTF-8\'\'%E2%88%9E');
    expect(contentDisposition('inline')).toBe('inline');
  });
});
