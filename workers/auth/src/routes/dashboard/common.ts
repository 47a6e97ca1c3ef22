import type { Context } from 'hono';
import { z } from 'zod';
import type { User } from '../../accounts.ts';
import type { AuthEnv } from '../../context.ts';
import { notSavedPage } from '../../views/dashboard/layout.tsx';

/** Sites and accounts for administrators, behind the same two-step login as the API. */
export type DashboardEnv = {
  Bindings: AuthEnv['Bindings'];
  /** The administrator, their session id's hash and its anti-forgery token (set by the admin guards). */
  Variables: AuthEnv['Variables'] & { admin: User; dashboardSession: string; csrfToken: string };
};

export async function form(c: Context<DashboardEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

/** 400 with the page of a form that was not saved. */
export const badRequest = (c: Context<DashboardEnv>, admin: User, message: string) => c.html(notSavedPage(admin, message), 400);

export const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid input.';
/** A positive integer id from the path, or a failed parse. */
export const idParam = (c: Context<DashboardEnv>) => z.coerce.number().int().positive().safeParse(c.req.param('id'));
