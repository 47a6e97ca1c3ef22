import type { Child } from 'hono/jsx';
import { PageShell } from '#shared/views/page.tsx';
import { PAGE_CSS } from '#shared/views/page-css.ts';
import type { User } from '../../accounts.ts';

// The dashboard's look, inline (the service's page policy allows inline style; it serves no
// stylesheet of its own), after the shared structural rules.
const DASHBOARD_CSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d232a}
main{max-width:60rem;margin:0 auto;padding:1rem}
.top{padding:.6rem 1rem;background:#f2f3f5;border-bottom:1px solid #dde}.top .site-name{color:#1d232a}
.site-menu>summary{background:#fff;color:#1d232a}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #dde;padding:.4rem;text-align:left;vertical-align:top}
form.inline{display:inline}input,select{padding:.3rem;margin:.15rem 0}label{display:block;margin:.4rem 0}
.error{color:#a40000;font-weight:600}.note{background:#fff6d6;padding:.6rem;border:1px solid #e6d48a}
code{background:#f2f3f5;padding:.1rem .3rem}`;

const NAV = [
  { href: '/admin/', label: 'Sites' },
  { href: '/admin/accounts/', label: 'Accounts' },
];

/** A dashboard page: the shared shell, the dashboard's navigation and sign-out for a signed-in administrator. */
export function Page(props: { title: string; admin?: User; styles?: string[]; scripts?: string[]; children: Child }) {
  return (
    <PageShell
      title={props.title}
      service="Authentication"
      home="/admin/"
      inlineStyle={`${PAGE_CSS}\n${DASHBOARD_CSS}`}
      styles={props.styles}
      scripts={props.scripts}
      nav={props.admin ? NAV : undefined}
      user={
        props.admin ? (
          <form class="inline site-user" method="post" action="/admin/logout/">
            <button type="submit">Sign out {props.admin.email}</button>
          </form>
        ) : undefined
      }
    >
      <h1>{props.title}</h1>
      {props.children}
    </PageShell>
  );
}

/** The session's anti-forgery token, a hidden field of every administrator's form. */
export const CsrfField = (props: { token: string }) => <input type="hidden" name="csrf_token" value={props.token} />;

/** The page of a form that was not saved, with the reason. */
export const notSavedPage = (admin: User, message: string) => (
  <Page title="Not saved" admin={admin}>
    <p class="error" role="alert">
      {message}
    </p>
    <p>
      <a href="javascript:history.back()">Back</a>
    </p>
  </Page>
);
