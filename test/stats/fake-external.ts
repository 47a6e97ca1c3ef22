import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

// Stand-ins for the two systems the stats service calls out to, served over real HTTP so the
// service's own fetch clients are what is tested:
// - the external statistics API (the camelCase contract; key as `Authorization: Bearer`);
// - the authentication service's logout endpoint.
// Some course ids and session ids make it misbehave, the way a real one can.

import { FAKE_COURSE, FAKE_EXTERNAL_KEY } from './fake-contract';

function wps(starts: number, wins: number, places: number) {
  const pct = (n: number) => (starts ? Math.round((10000 * n) / starts) / 100 : 0);
  return { wins, win_pct: pct(wins), places, place_pct: pct(places), starts };
}

/** A record honouring the contract, derived from the ids so a test can predict it. */
export function fakeRecord(id: number, name: string) {
  return {
    id,
    name,
    performance_365d: { wins: id % 7, starts: 20 + (id % 11), win_pct: Math.round((10000 * (id % 7)) / (20 + (id % 11))) / 100 },
    wins_30d: id % 3,
    avg_per_meeting: 0.25,
    last_win_date: '2026-01-02',
    avg_finishing_pos: 4.5,
    top_horses: [{ name: `Horse ${id}`, win_pct: 33.33 }],
    price_band_ivs: [{ band: '1.00-2.00', trainer_wps: wps(10, 4, 7), baseline_wps: wps(1000, 350, 700), iv: 1.14 }],
  };
}

export interface FakeExternal {
  url: string;
  /** sessionIds the logout endpoint has received, in order. */
  logouts: string[];
  close(): Promise<void>;
}

export async function startFakeExternal(): Promise<FakeExternal> {
  const logouts: string[] = [];
  const held = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST' && url.pathname === '/logout') {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString()));
      req.on('end', () => {
        const { sessionId } = JSON.parse(text || '{}') as { sessionId?: string };
        if (sessionId === 'hang') return void held.add(res);
        logouts.push(String(sessionId));
        if (sessionId === 'fail') return send(500, { detail: 'boom' });
        res.writeHead(204).end();
      });
      return;
    }
    if (req.method === 'GET' && url.pathname === '/received-logouts') return send(200, logouts);
    const endpoint = url.pathname.replace(/^\//, '');
    if (req.method !== 'GET' || !['trainerStats', 'jockeyStats', 'meetingStats'].includes(endpoint))
      return send(404, { detail: 'Not Found' });
    if (req.headers.authorization !== `Bearer ${FAKE_EXTERNAL_KEY}`) return send(401, { detail: 'Not authenticated' });
    const courseId = Number(url.searchParams.get('courseId'));
    const date = url.searchParams.get('date') ?? '';
    if (courseId === FAKE_COURSE.hanging) return void held.add(res);
    if (courseId === FAKE_COURSE.missing) return send(404, { detail: 'No meeting' });
    if (courseId === FAKE_COURSE.failing) return send(500, { detail: 'Internal Server Error' });
    if (courseId === FAKE_COURSE.notJson) {
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end('<html>maintenance</html>');
    }
    const meeting = { date, course: 'Fake Park', courseId };
    const trainers = [fakeRecord(courseId + 1, 'Fake Trainer')];
    const jockeys = [fakeRecord(courseId + 2, 'Fake Jockey')];
    if (courseId === FAKE_COURSE.offContract) trainers[0] = { ...trainers[0]!, performance_365d: undefined as never };
    const body =
      endpoint === 'trainerStats'
        ? { status: 'success', meeting, trainers }
        : endpoint === 'jockeyStats'
          ? { status: 'success', meeting, jockeys }
          : { status: 'success', meeting, trainers, jockeys };
    send(200, body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake external API did not start');
  return {
    url: `http://127.0.0.1:${address.port}`,
    logouts,
    close: async () => {
      for (const res of held) res.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
