import type { MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { HttpError } from '#shared/http-error.ts';
import { NUL_MESSAGE, hasNul } from '#shared/text.ts';
import type { MailContext, MailEnv } from '../context.ts';
import { assistantAdmins, limitBody } from '../guards.ts';
import type { FormState } from '../views/settings.tsx';

/**
 * What the settings page's forms share: their guards, reading a posted form, checking its text
 * fields, and the flash message that follows a redirect (post/redirect/get).
 */

/** The largest form the page sends: a prompt of 20,000 characters, each up to 4 bytes, URL-encoded. */
const MAX_FORM_BYTES = 256 * 1024;

/** The body cap of the page's forms (routes: pageSession, formLimit, csrf, assistant). */
export const formLimit: MiddlewareHandler<MailEnv> = limitBody(MAX_FORM_BYTES);
/** The body cap of the forms managing who may use the assistant (routes: pageSession, userFormLimit, csrf, assistantAdmin). */
export const userFormLimit: MiddlewareHandler<MailEnv> = limitBody(16 * 1024);

/** The posted form's text fields (a file where text belongs counts as empty). */
export async function formFields(c: MailContext): Promise<Record<string, string>> {
  const body = await c.req.parseBody().catch(() => {
    throw new HttpError(400, 'invalid_request', 'The form could not be read: send it again from the page.');
  });
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) if (key !== 'csrf_token') out[key] = typeof value === 'string' ? value : '';
  return out;
}

/** The problem with a text field, if any: NUL, too long, or missing when required. */
export function textProblem(value: string, max: number, required = false): string | undefined {
  if (hasNul(value)) return `${NUL_MESSAGE[0]!.toUpperCase()}${NUL_MESSAGE.slice(1)}.`;
  if (value.length > max) return `At most ${max} characters (this is ${value.length}).`;
  if (required && !value.trim()) return 'Required.';
  return undefined;
}

/** A category named by a form's hidden field: no name of a category holds NUL or is over 64 characters (such a value names none). */
export const categoryField = (value: string | undefined): string | undefined =>
  value === undefined || textProblem(value, 64, true) ? undefined : value;

/** The form sent back for correction: the person's input as typed (without NUL characters, which cannot be shown). */
export function formState(form: string, values: Record<string, string>, fields: Record<string, string | undefined>): FormState | undefined {
  const problems = Object.fromEntries(Object.entries(fields).filter((e): e is [string, string] => e[1] !== undefined));
  if (!Object.keys(problems).length) return undefined;
  return { form, values: Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v.replaceAll('\u0000', '')])), fields: problems };
}

const FLASH_COOKIE = 'mail_flash';
const flashCookie = { path: '/', httpOnly: true, secure: true, sameSite: 'Lax', maxAge: 60 } as const;

export interface Flash {
  text: string;
  kind: 'notice' | 'error';
  /** A category or rule changed: offer the re-categorisation of recent mail. */
  offer?: boolean;
}

/** The message the next page view shows once, then the redirect to the page (303: the browser GETs it). */
export function redirectWithFlash(c: MailContext, flash: Flash, to: '/settings' | '/settings/rules' = '/settings'): Response {
  setCookie(c, FLASH_COOKIE, encodeURIComponent(JSON.stringify({ ...flash, text: flash.text.slice(0, 500) })), flashCookie);
  return c.redirect(to, 303);
}

/** The flash message left by the last redirect (and forgotten). */
export function takeFlash(c: MailContext): Flash | undefined {
  const raw = getCookie(c, FLASH_COOKIE);
  if (raw === undefined) return undefined;
  deleteCookie(c, FLASH_COOKIE, flashCookie);
  try {
    const value = JSON.parse(decodeURIComponent(raw)) as Partial<Flash>;
    if (typeof value.text !== 'string') return undefined;
    return { text: value.text.slice(0, 500), kind: value.kind === 'error' ? 'error' : 'notice', offer: value.offer === true };
  } catch {
    return undefined;
  }
}

/** Whether the address is one of the assistant's admins: listed in MAIL_ASSISTANT_ADMINS, or in a domain listed there (`@domain`). */
export function adminEntryFor(adminsSetting: string, email: string): string | undefined {
  const address = email.trim().toLowerCase();
  return assistantAdmins(adminsSetting).find((entry) => (entry.startsWith('@') ? address.endsWith(entry) : address === entry));
}
