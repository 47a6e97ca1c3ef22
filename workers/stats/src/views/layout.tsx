import type { Child } from 'hono/jsx';
import { assetUrl, contentHash } from '#shared/views/assets.ts';
import { PageShell } from '#shared/views/page.tsx';
import { PAGE_CSS } from '#shared/views/page-css.ts';

const CSS = `
body{margin:0;font:15px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;color:#1d2330;background:#f6f7f9}
.top{background:#123;color:#fff;padding:.6rem 1rem}.top a{color:#cde;text-decoration:none}.top .site-name{color:#fff}
.site-menu>summary{color:#fff}
main{max-width:1200px;margin:0 auto;padding:1rem}
h1{font-size:1.4rem;margin:.2rem 0 1rem}h2{font-size:1.15rem;margin:1.4rem 0 .5rem}
label{display:inline-flex;flex-direction:column;font-size:.85rem;gap:.2rem;margin:0 .6rem .6rem 0}
input,select,button,textarea{font:inherit;padding:.4rem .5rem;border:1px solid #b8c0cc;border-radius:4px;background:#fff;max-width:100%}
button{background:#1f5fbf;color:#fff;border-color:#1f5fbf;cursor:pointer}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;background:#fff;border:1px solid #dde2e8;border-radius:4px}
table{border-collapse:collapse;width:100%;font-size:.88rem}th,td{padding:.35rem .5rem;border-bottom:1px solid #eef0f3;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}th{background:#f0f3f7;position:sticky;top:0;cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" ▲"}th[aria-sort=descending]::after{content:" ▼"}
tr.selected td{background:#e6efff}tbody tr{cursor:pointer}
.muted{color:#667}.error{color:#a00}pre{background:#fff;border:1px solid #dde2e8;padding:.6rem;overflow:auto;max-height:60vh}
code{background:#eef1f5;padding:0 .2rem;border-radius:3px}
.uplot{font-size:12px}.u-legend{margin:.3rem auto;text-align:center}.u-legend .u-marker{display:inline-block;width:1em;height:1em;margin-right:4px;vertical-align:middle}
.u-legend th,.u-legend td{border:0;padding:0 .4rem;background:none;cursor:default}.u-over,.u-under{position:absolute}.u-wrap{position:relative;user-select:none}
#chart{background:#fff;border:1px solid #dde2e8;border-radius:4px;padding:.4rem;min-height:120px}
`;

const NAV = [
  { href: '/', label: 'Dashboard' },
  { href: '/api-test', label: 'API tester' },
  { href: '/api-docs', label: 'Reference' },
  { href: '/docs', label: 'Swagger UI' },
  { href: '/redoc', label: 'ReDoc' },
  { href: '/login?direct=1', label: 'Log in' },
];

/**
 * The URL of one of the service's own scripts, versioned by a hash of its content. They live in
 * TypeScript modules (served by routes/pages.tsx), so the hash is taken from the text itself and
 * can never be stale.
 */
export const scriptUrl = (path: string, body: string) => assetUrl({ [path]: contentHash(body) }, path);

// The stylesheet stays inline: the service has no static-asset directory (its few assets are
// served from modules by routes/pages.tsx), its page policy allows inline style, and it saves every
// page a request. The shared structural rules come first, the service's look after.
export function Layout(props: { title: string; children: Child; head?: Child; styles?: string[]; scripts?: string[] }) {
  return (
    <PageShell
      title={props.title}
      service="Meeting statistics"
      home="/"
      inlineStyle={`${PAGE_CSS}\n${CSS}`}
      head={props.head}
      styles={props.styles}
      scripts={props.scripts}
      nav={NAV}
    >
      {props.children}
    </PageShell>
  );
}
