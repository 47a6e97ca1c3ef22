/**
 * Sign-ins of the services that sign people in through the authentication service, as a browser (or
 * the CMS's API client) runs them against a local Worker: each answers the status of the step that
 * ended it and, when it succeeded, the cookie header a signed-in request carries.
 */

export interface SignIn {
  status: number;
  cookie?: string;
}

export interface Account {
  email: string;
  password: string;
  /** A backup code of the account's second factor, used by the step that asks for it. */
  code: () => string | undefined;
}

/** Keeps the cookies a Worker sets (by name), follows no redirects, gives up after `timeoutMs`. */
class Browser {
  private readonly cookies = new Map<string, string>();
  constructor(
    private readonly origin: string,
    private readonly timeoutMs: number,
  ) {}

  get cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async send(
    path: string,
    init: { form?: Record<string, string>; json?: unknown } = {},
  ): Promise<{ status: number; text: string; location?: string }> {
    const headers: Record<string, string> = {};
    if (this.cookies.size) headers.cookie = this.cookieHeader;
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.json);
    }
    const res = await fetch(`${this.origin}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1);
      if (value === '' || attributes.some((a) => /^\s*max-age=0\s*$/i.test(a))) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return { status: res.status, text: await res.text(), location: res.headers.get('location') ?? undefined };
  }
}

const tokenIn = (html: string, field: string) =>
  new RegExp(`name="${field}" value="([^"]+)"`).exec(html)?.[1] ?? /name="request-verification-token" content="([^"]+)"/.exec(html)?.[1];

/** The CMS's API sign-in: password, then the second factor; the session cookie. */
export async function signInCms(origin: string, account: Account, timeoutMs: number): Promise<SignIn> {
  const browser = new Browser(origin, timeoutMs);
  const login = await browser.send('/api/v1/auth/login', { json: { email: account.email, password: account.password } });
  if (login.status !== 200) return { status: login.status };
  const { loginToken } = JSON.parse(login.text) as { loginToken: string };
  const verify = await browser.send('/api/v1/auth/totp-verify', { json: { code: account.code(), loginToken } });
  const session = browser.cookieHeader.split('; ').find((c) => c.startsWith('app_session='));
  return { status: verify.status, cookie: verify.status === 200 ? session : undefined };
}

/** The migration app's two sign-in pages (anti-forgery token in each form); its AuthToken cookie. */
export async function signInMigrate(origin: string, account: Account, timeoutMs: number): Promise<SignIn> {
  const browser = new Browser(origin, timeoutMs);
  const page = await browser.send('/Account/Login');
  const token = tokenIn(page.text, '__RequestVerificationToken');
  if (page.status !== 200 || !token) return { status: page.status };
  const login = await browser.send('/Account/Login', {
    form: { __RequestVerificationToken: token, email: account.email, password: account.password },
  });
  if (login.status !== 302 || !login.location?.includes('pendingToken=')) return { status: login.status };
  const next = new URL(login.location, origin);
  const verifyPage = await browser.send(`${next.pathname}${next.search}`);
  const verify = await browser.send('/Account/Verify', {
    form: {
      __RequestVerificationToken: tokenIn(verifyPage.text, '__RequestVerificationToken') ?? token,
      pendingToken: next.searchParams.get('pendingToken') ?? '',
      email: account.email,
      code: account.code() ?? '',
    },
  });
  const ok = verify.status === 302 && browser.cookieHeader.includes('AuthToken=');
  return { status: verify.status, cookie: ok ? browser.cookieHeader : undefined };
}

/** The mail assistant's sign-in form, both steps (double-submit token); its mail_session cookie. */
export async function signInMail(origin: string, account: Account, timeoutMs: number): Promise<SignIn> {
  const browser = new Browser(origin, timeoutMs);
  const page = await browser.send('/login');
  const token = tokenIn(page.text, 'csrf_token');
  if (page.status !== 200 || !token) return { status: page.status };
  const password = await browser.send('/login', { form: { csrf_token: token, email: account.email, password: account.password } });
  const second = tokenIn(password.text, 'csrf_token');
  if (password.status !== 200 || !second) return { status: password.status };
  const code = await browser.send('/login', { form: { csrf_token: second, code: account.code() ?? '' } });
  const session = browser.cookieHeader.split('; ').find((c) => c.startsWith('mail_session='));
  return { status: code.status, cookie: code.status === 302 ? session : undefined };
}
