import type { Context } from 'hono';
import type { Child } from 'hono/jsx';
import { raw } from 'hono/html';
import { z } from 'zod';
import type { User } from '../../accounts.ts';
import type { AuthEnv } from '../../context.ts';

/** Sites and accounts for administrators, behind the same two-step login as the API. */
export type DashboardEnv = { Bindings: AuthEnv['Bindings']; Variables: AuthEnv['Variables'] & { admin: User } };

export function Page(props: { title: string; admin?: User; children: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{props.title} · Authentication</title>
        <style>{raw(`body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#1d232a}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.4rem;text-align:left;vertical-align:top}
form.inline{display:inline}input,select{padding:.3rem;margin:.15rem 0}label{display:block;margin:.4rem 0}
.error{color:#a40000;font-weight:600}.note{background:#fff6d6;padding:.6rem;border:1px solid #e6d48a}nav a{margin-right:1rem}
code{background:#f2f3f5;padding:.1rem .3rem}`)}</style>
      </head>
      <body>
        {props.admin ? (
          <nav>
            <a href="/admin/">Sites</a>
            <a href="/admin/accounts/">Accounts</a>
            <form class="inline" method="post" action="/admin/logout/">
              <button type="submit">Sign out {props.admin.email}</button>
            </form>
          </nav>
        ) : null}
        <h1>{props.title}</h1>
        {props.children}
      </body>
    </html>
  );
}


export async function form(c: Context<DashboardEnv>): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).filter((e): e is [string, string] => typeof e[1] === 'string'));
}

export const badRequest = (c: Context<DashboardEnv>, admin: User, message: string) =>
  c.html(
    <Page title="Not saved" admin={admin}>
      <p class="error" role="alert">{message}</p>
      <p>
        <a href="javascript:history.back()">Back</a>
      </p>
    </Page>,
    400,
  );

export const firstIssue = (error: z.ZodError) => error.issues[0]?.message ?? 'Invalid input.';
/** A positive integer id from the path, or a failed parse. */
export const idParam = (c: Context<DashboardEnv>) => z.coerce.number().int().positive().safeParse(c.req.param('id'));
