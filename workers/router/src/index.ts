import { Hono } from 'hono';
import { errorBody, onError } from '#shared/errors.ts';
import { requestLog } from '#shared/request-log.ts';
import { SERVICES, isServiceName, type ServiceName } from '#shared/services.ts';

type RouterEnv = { Bindings: Env; Variables: { requestId: string } };

const app = new Hono<RouterEnv>();
app.use(requestLog('router'));
app.onError(onError);

/**
 * Which service a request is for: the first label of its host name (`stats.example.com`), or else
 * the first segment of its path on a shared origin (`api.example.com/stats/…`). A prefixed request
 * is forwarded unchanged: each service knows its prefix (workers/shared/base-path.ts).
 */
export function serviceFor(url: URL): { service: ServiceName; by: 'host' | 'path' } | undefined {
  const label = url.hostname.toLowerCase().split('.')[0] ?? '';
  if (isServiceName(label)) return { service: label, by: 'host' };
  const segment = url.pathname.split('/')[1] ?? '';
  if (isServiceName(segment)) return { service: segment, by: 'path' };
  return undefined;
}

app.all('*', async (c) => {
  const url = new URL(c.req.url);
  const target = serviceFor(url);
  if (!target) {
    const hosts = Object.keys(SERVICES)
      .map((name) => `${name}.`)
      .join(', ');
    const paths = Object.keys(SERVICES)
      .map((name) => `/${name}/`)
      .join(', ');
    return c.json(
      errorBody(
        c,
        'unknown_host',
        `No service answers on ${url.hostname}${url.pathname}; host names start with one of ${hosts} or paths with one of ${paths}`,
      ),
      404,
    );
  }
  const binding: unknown = Reflect.get(c.env, SERVICES[target.service].binding);
  if (!isFetcher(binding)) {
    return c.json(errorBody(c, 'service_not_deployed', `The ${SERVICES[target.service].title} is not deployed behind this router`), 404);
  }
  const forwarded = new Request(c.req.raw);
  forwarded.headers.set('X-Request-Id', c.var.requestId);
  return binding.fetch(forwarded);
});

function isFetcher(value: unknown): value is Fetcher {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'fetch') === 'function';
}

export default app;
