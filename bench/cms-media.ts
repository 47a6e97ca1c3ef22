import { PhotonImage } from '@cf-wasm/photon/node';
import { join } from 'node:path';
import { startLocalWorker } from '../scripts/local-worker.ts';
import { ROOT } from '../scripts/workers.ts';
import type { BenchContext } from './context.ts';
import { median, ms, percentile, sample } from './stats.ts';

/** A JPEG original with gradients and noise (so it compresses like a photo, not like a flat fill). */
function photo(width: number, height: number): Uint8Array {
  const px = new Uint8Array(width * height * 4);
  let seed = 42;
  for (let i = 0; i < px.length; i += 4) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    const x = (i / 4) % width;
    const y = Math.floor(i / 4 / width);
    const noise = (seed >> 16) & 31;
    px[i] = ((x * 200) / width + noise) & 255;
    px[i + 1] = ((y * 200) / height + noise) & 255;
    px[i + 2] = (((x + y) * 90) / (width + height) + noise * 2) & 255;
    px[i + 3] = 255;
  }
  const image = new PhotonImage(px, width, height);
  try {
    return image.get_bytes_jpeg(88);
  } finally {
    image.free();
  }
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/**
 * The cost of a photo's variants in workerd: decode, three resizes and JPEG encodes
 * (`/variants`), and step 2's whole object work with local R2 (`/promote`), less the request
 * transfer of the same bytes (`/echo`). A fresh isolate per size, so the WASM memory it reports
 * is that size's high-water mark. Timers inside workerd only move on I/O: timed from Node.
 */
export async function benchCmsMedia({ runs }: BenchContext) {
  const n = Math.min(runs, 30);
  console.log(`\nCMS photo variants (thumbnail 150, medium 600, large 1200 px; ${n} runs per figure, medians)`);
  for (const [width, height] of [
    [1200, 800],
    [3000, 2000],
  ] as const) {
    const original = photo(width, height);
    const worker = await startLocalWorker({
      config: join(ROOT, 'bench/worker/cms-media.toml'),
      vars: { SESSION_SECRET: 'bench-session-secret-0123456789abcdef0123' },
    });
    const post = async (path: string) => {
      const res = await worker.fetch(`http://bench${path}`, { method: 'POST', body: original, headers: { 'content-type': 'image/jpeg' } });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return res.json();
    };
    try {
      const before = ((await (await worker.fetch('http://bench/memory')).json()) as { wasmBytes: number }).wasmBytes;
      const echo = await sample(n, () => post('/echo'), 3);
      const variants = await sample(n, () => post('/variants'), 3);
      const promote = await sample(n, () => post('/promote?contentType=image%2Fjpeg'), 3);
      const after = ((await (await worker.fetch('http://bench/memory')).json()) as { wasmBytes: number }).wasmBytes;
      const base = median(echo);
      console.log(
        `  ${width}×${height} JPEG (${mb(original.length)}): variants ${ms(median(variants) - base)} per photo (p95 ${ms(percentile(variants, 95) - base)})` +
          `   step 2 object work with local R2 ${ms(median(promote) - base)}   request transfer ${ms(base)}` +
          `   Photon WASM memory peak ${mb(after)} (at start ${mb(before)}; raw RGBA ${mb(width * height * 4)})`,
      );
    } finally {
      await worker.dispose();
    }
  }
}
