import { Hono } from 'hono';
import { errorBody, onError } from '../../shared/errors.ts';
import { requestLog } from '../../shared/request-log.ts';
import { SERVICES, isServiceName } from '../../shared/services.ts';

type RouterEnv = { Bindings: Env; Variables: { requestId: string } };

const app = new Hono<RouterEnv>();
app.use(requestLog('router'));
app.onError(onError);

// Each service owns a host name (`stats.example.com`); the first label picks the service binding.
app.all('*', async (c) => {
  const host = new URL(c.req.url).hostname.toLowerCase();
  const label = host.split('.')[0] ?? '';
  const known = Object.keys(SERVICES).map((name) => `${name}.`).join(', ');
  if (!isServiceName(label)) {
    return c.json(errorBody(c, 'unknown_host', `No service answers on ${host}; host names start with one of ${known}`), 404);
  }
  const target: unknown = Reflect.get(c.env, SERVICES[label].binding);
  if (!isFetcher(target)) {
    return c.json(errorBody(c, 'service_not_deployed', `The ${SERVICES[label].title} is not deployed behind this router`), 404);
  }
  const forwarded = new Request(c.req.raw);
  forwarded.headers.set('X-Request-Id', c.var.requestId);
  return target.fetch(forwarded);
});

function isFetcher(value: unknown): value is Fetcher {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'fetch') === 'function';
}

export default app;
