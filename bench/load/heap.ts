import WebSocket from 'ws';

// The JS heap of a Worker's isolate after a forced full garbage collection, read through the V8
// inspector that wrangler opens when the Worker is started with `inspector: true` (it lists the
// Worker on `/json` and relays the Chrome DevTools Protocol to workerd). A heap that grows after
// collection, request after request, is a leak of the Worker's code (objects kept reachable); RSS
// that grows while the collected heap stays flat is V8's spaces, the allocator or SQLite settling.

export interface HeapReading {
  /** Seconds since the soak started. */
  atS: number;
  /** `Runtime.getHeapUsage` after `HeapProfiler.collectGarbage`, in MiB. */
  usedMiB: number;
  totalMiB: number;
  /** ArrayBuffers' backing stores and workerd's own objects still held after the collection (outside usedMiB). */
  backingStoreMiB: number;
  embedderMiB: number;
  /** From asking for the collection to the heap's figures (the collection itself, a stop of the isolate, is part of it). */
  pauseMs: number;
  /** Read once the load had ended (the others while it ran). */
  idle?: boolean;
}

export interface HeapProbe {
  /** Collects garbage in the Worker's isolate, then reads its heap; `poke` sends the Worker a request. */
  read(atS: number, poke?: () => Promise<unknown>): Promise<HeapReading>;
  close(): void;
}

/** A devtools session on the Worker's isolate: the target wrangler's inspector lists on `/json`. */
export async function openHeapProbe(inspectorUrl: URL): Promise<HeapProbe> {
  const listUrl = new URL('/json', `http://${inspectorUrl.host}`);
  const targets = (await (await fetch(listUrl)).json()) as { title?: string; webSocketDebuggerUrl?: string }[];
  const target = targets.find((t) => t.webSocketDebuggerUrl);
  if (!target?.webSocketDebuggerUrl) throw new Error(`no Worker listed on ${listUrl}`);
  const ws = new WebSocket(target.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let nextId = 1;
  const pending = new Map<number, { resolve: (result: unknown) => void; reject: (err: Error) => void }>();
  ws.on('message', (data) => {
    if (pending.size === 0) return; // the runtime's events (console lines, network), taken and dropped
    const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting) return; // an event, or the relay's own keep-alive
    pending.delete(message.id!);
    if (message.error) waiting.reject(new Error(message.error.message));
    else waiting.resolve(message.result);
  });
  ws.on('close', () => {
    for (const waiting of pending.values()) waiting.reject(new Error('the inspector connection closed'));
    pending.clear();
  });
  const call = <T>(method: string, params: Record<string, unknown> = {}, timeoutMs = 60_000) =>
    new Promise<T>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${method}: no answer within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (result) => {
          clearTimeout(timer);
          resolve(result as T);
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await call('HeapProfiler.enable');
  const mib = (bytes: number) => Math.round((bytes / 1024 / 1024) * 100) / 100;
  return {
    async read(atS, poke) {
      const start = performance.now();
      const collected = call('HeapProfiler.collectGarbage');
      // V8 runs the collection as a task on the isolate's thread, which workerd turns to when a
      // request enters the isolate (an idle Worker never answered): a request every 200 ms until
      // the answer comes.
      let done = false;
      const poking = (async () => {
        while (!done && poke) {
          await new Promise((resolve) => setTimeout(resolve, 200));
          if (!done) await poke().catch(() => {});
        }
      })();
      try {
        await collected;
      } finally {
        done = true;
        await poking;
      }
      const usage = await call<{ usedSize: number; totalSize: number; embedderHeapUsedSize?: number; backingStorageSize?: number }>(
        'Runtime.getHeapUsage',
      );
      return {
        atS,
        usedMiB: mib(usage.usedSize),
        totalMiB: mib(usage.totalSize),
        backingStoreMiB: mib(usage.backingStorageSize ?? Number.NaN),
        embedderMiB: mib(usage.embedderHeapUsedSize ?? Number.NaN),
        pauseMs: Math.round(performance.now() - start),
      };
    },
    close() {
      ws.close();
    },
  };
}

/** Growth in percent from the first reading to the last, one decimal. */
export function heapGrowthPercent(readings: HeapReading[]): number {
  const first = readings[0]?.usedMiB;
  const last = readings.at(-1)?.usedMiB;
  if (first === undefined || last === undefined || first === 0) return Number.NaN;
  return Math.round(((last - first) / first) * 1000) / 10;
}

/** Seconds between two readings during a soak: each pauses the isolate for a full collection. */
export const HEAP_EVERY_S = 60;

/**
 * Reads each service's heap after collection every HEAP_EVERY_S seconds of a `seconds`-long soak,
 * at the end of its warm-up (`warmUpS`) and a few seconds before its end, while the load runs;
 * `stop()` takes one more once the load has ended.
 */
export async function watchHeaps(services: { name: string; origin: string; heap?: HeapProbe | Error }[], seconds: number, warmUpS: number) {
  const readings: Record<string, HeapReading[]> = {};
  const failures: Record<string, string> = {};
  const probes = new Map<string, HeapProbe>();
  for (const service of services) {
    if (service.heap instanceof Error) failures[service.name] = service.heap.message;
    else if (service.heap) probes.set(service.name, service.heap);
    else failures[service.name] = 'started without an inspector';
  }
  const at = [...new Set([warmUpS, Math.max(warmUpS, seconds - 5)])];
  for (let t = HEAP_EVERY_S; t < seconds - 5; t += HEAP_EVERY_S) if (!at.includes(t)) at.push(t);
  at.sort((a, b) => a - b);
  const readAll = (atS: number, idle: boolean) =>
    Promise.all(
      services.map(async (service) => {
        const probe = probes.get(service.name);
        if (!probe) return;
        const poke = () => fetch(service.origin).then((res) => res.body?.cancel());
        try {
          (readings[service.name] ??= []).push({ ...(await probe.read(atS, poke)), ...(idle ? { idle: true } : {}) });
        } catch (err) {
          // Read on: on a machine short of CPU one collection can wait past the timeout.
          failures[service.name] = [failures[service.name], `at ${atS} s: ${(err as Error).message}`].filter(Boolean).join('; ');
        }
      }),
    );
  const t0 = performance.now();
  const inFlight: Promise<unknown>[] = [];
  const timers = at.map((atS) => setTimeout(() => inFlight.push(readAll(atS, false)), atS * 1000));
  return {
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      await Promise.all(inFlight);
      await readAll(Math.round((performance.now() - t0) / 1000), true);
      return { readings, failures };
    },
  };
}
