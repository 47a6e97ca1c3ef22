import type { RequestSpec } from 'autocannon';
import type { Scenario } from './drive.ts';
import { STATS_TOKEN, type startAuth, type startCms, type startForm, type Started } from './services.ts';

export interface Running {
  stats: Started;
  form: Awaited<ReturnType<typeof startForm>>;
  cms: Awaited<ReturnType<typeof startCms>>;
  auth: Awaited<ReturnType<typeof startAuth>>;
}

export interface Targets {
  horse: number;
  meeting: { date: string; course_id: number };
}

export function statsScenarios(stats: Started, { meeting }: Targets): Scenario[] {
  const headers = { authorization: `Bearer ${STATS_TOKEN}` };
  const query = `date=${meeting.date}&courseId=${meeting.course_id}`;
  return [
    { service: 'stats', route: 'GET /meetingStats', origin: stats.origin, path: `/meetingStats?${query}`, headers },
    { service: 'stats', route: 'GET /meeting-participants', origin: stats.origin, path: `/meeting-participants?${query}`, headers },
  ];
}

/** The runner page uncached (a new host name per request: a new cache key) and cached (one host). */
export function formScenarios(form: Running['form'], { horse }: Targets): Scenario[] {
  const path = `/form/runner/${horse}/`;
  let n = 0;
  return [
    {
      service: 'form',
      route: 'GET runner page, uncached',
      origin: form.origin,
      path,
      requests: (): RequestSpec[] => [
        {
          method: 'GET',
          path,
          setupRequest: (request) => ({ ...request, headers: { ...request.headers, host: `u${n++}.load.bench`, cookie: form.cookie } }),
        },
      ],
    },
    {
      service: 'form',
      route: 'GET runner page, cached',
      origin: form.origin,
      path,
      headers: { host: 'cached.load.bench', cookie: form.cookie },
    },
  ];
}

export function cmsScenarios(cms: Running['cms']): Scenario[] {
  const headers = { cookie: cms.cookie };
  return [
    { service: 'cms', route: 'GET /api/v1/story', origin: cms.origin, path: '/api/v1/story', headers },
    { service: 'cms', route: 'GET /api/v1/lookup/horses?query=sun', origin: cms.origin, path: '/api/v1/lookup/horses?query=sun', headers },
  ];
}

/**
 * whoami with a bearer token, and refreshes: a refresh token is single-use, so each connection
 * holds a token family of its own (new for each step) and sends the token the previous answer gave it.
 */
export function authScenarios(auth: Running['auth'], maxFamilies = 50): Scenario[] {
  // Families not in flight: a request takes one, its answer gives it back with the new token.
  let free: string[] = [];
  const path = '/api/token/refresh/';
  return [
    {
      service: 'auth',
      route: 'GET /api/whoami/',
      origin: auth.origin,
      path: '/api/whoami/',
      headers: { authorization: `Bearer ${auth.access}` },
    },
    {
      service: 'auth',
      route: 'POST /api/token/refresh/',
      origin: auth.origin,
      path,
      maxConnections: maxFamilies,
      prepare: async (connections) => {
        free = [];
        // One at a time: each sign-in verifies a password (scrypt, CPU-bound).
        for (let i = 0; i < connections; i++) free.push((await auth.signIn()).refresh);
      },
      requests: (): RequestSpec[] => [
        {
          method: 'POST',
          path,
          headers: { 'content-type': 'application/json', 'x-auth-client-secret': auth.secret },
          setupRequest: (request, context) => {
            const token = free.pop();
            if (token === undefined) throw new Error('more refresh connections than token families');
            context.token = token;
            return { ...request, body: JSON.stringify({ refresh_token: token }) };
          },
          onResponse: (status, body, context) => {
            free.push(status === 200 ? String((JSON.parse(body) as { refresh_token: string }).refresh_token) : String(context.token));
          },
        },
      ],
    },
  ];
}
