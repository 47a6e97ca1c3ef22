import { env, exports } from 'cloudflare:workers';

// Shared by the stats tests: requests to the Worker, and a recent meeting to ask about.

export const TOKEN = env.STATIC_API_TOKEN;

/** A request to the Worker as the runtime delivers it (its own bindings and Durable Object). */
export const call = (path: string, init: RequestInit = {}) => exports.default.fetch(`http://stats${path}`, init);

/** The execution context for `app.request` with changed bindings; background work is not awaited. */
export const ctx = { waitUntil: () => {}, passThroughOnException: () => {}, props: {} };

export interface RecentMeeting {
  date: string;
  courseId: number;
  course: string;
}

let recent: Promise<RecentMeeting> | undefined;

/** The first meeting (by course name) of the nearest earlier day with meetings, so one with results; looked up once per file. */
export function recentMeeting(): Promise<RecentMeeting> {
  recent ??= (async () => {
    for (let back = 1; back < 10; back++) {
      const date = new Date(Date.parse(`${env.RACING_TODAY}T00:00:00Z`) - back * 86_400_000).toISOString().slice(0, 10);
      const res = await call(`/meetings?date=${date}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
      const list = await res.json<{ course_id: number; course: string }[]>();
      if (list[0]) return { date, courseId: list[0].course_id, course: list[0].course };
    }
    throw new Error('no meeting in the last ten days of tiny data');
  })();
  return recent;
}
