/** Loopback host names: the machine the Worker runs on, never a deployed one. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '[::1]';
}

/**
 * True when the Worker runs in local development or a test: its Postgres relay `PG_WS_PROXY`,
 * which only the local runners set (`npm run dev` gives it to every Worker, as do the Deno host,
 * the tests and the bench), is on loopback. A deployed Worker has none and could not reach one on
 * loopback. Read from the Worker's configuration only, never from anything a request carries.
 */
export function isLocalDevelopment(env: unknown): boolean {
  const proxy = typeof env === 'object' && env !== null ? Reflect.get(env, 'PG_WS_PROXY') : undefined;
  if (typeof proxy !== 'string' || !proxy) return false;
  try {
    const url = new URL(/^wss?:\/\//.test(proxy) ? proxy : `ws://${proxy}`);
    return isLoopbackHost(url.hostname);
  } catch {
    return false;
  }
}
