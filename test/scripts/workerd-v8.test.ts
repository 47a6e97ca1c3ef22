import { Miniflare } from 'miniflare';
import { afterEach, describe, expect, it } from 'vitest';
import { useWorkerdV8Flags } from '../../scripts/workerd-v8';
import { withV8Flags } from '../../scripts/workerd-v8/patch.mjs';

const VARIABLES = ['MINIFLARE_WORKERD_PATH', 'WORKERD_V8_FLAGS', 'WORKERD_BINARY', 'WORKERD_NODE'] as const;
const saved = Object.fromEntries(VARIABLES.map((name) => [name, process.env[name]]));

afterEach(() => {
  for (const name of VARIABLES) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** Whether a Worker in a fresh workerd sees `gc`, which V8 defines only with --expose-gc. */
async function observe(): Promise<{ gc: string }> {
  const mf = new Miniflare({
    modules: true,
    compatibilityDate: '2026-04-01',
    script: `export default { fetch() {
      return Response.json({ gc: typeof globalThis.gc });
    } }`,
  });
  try {
    return (await (await mf.dispatchFetch('http://worker/')).json()) as { gc: string };
  } finally {
    await mf.dispose();
  }
}

describe('workerd V8 flags', () => {
  it('are on for this whole run: every workerd runs V8 without background threads', () => {
    expect(saved.WORKERD_V8_FLAGS?.split(' ')).toContain('--single-threaded');
    expect(saved.MINIFLARE_WORKERD_PATH).toMatch(/scripts\/workerd-v8\/workerd$/);
  });

  it('reach the workerd that Miniflare starts, which still serves the Worker', async () => {
    for (const name of VARIABLES) delete process.env[name];
    expect((await observe()).gc).toBe('undefined');
    useWorkerdV8Flags(['--expose-gc', '--single-threaded']);
    expect((await observe()).gc).toBe('function');
  });

  it('adds the flags as a segment of their own and leaves the original segments byte for byte', () => {
    // A one-segment message whose root is a struct of one data word and six pointers, as Miniflare writes.
    const original = Buffer.alloc(8 + 8 * 8);
    original.writeUInt32LE(0, 0);
    original.writeUInt32LE(8, 4);
    original.writeUInt32LE(0, 8);
    original.writeUInt32LE((6 << 16) | 1, 12);
    original.write('payload!', 16);
    const patched = withV8Flags(original, ['--a', '--bcdefghij']);
    expect(patched.readUInt32LE(0)).toBe(1);
    expect(patched.readUInt32LE(4)).toBe(8);
    const added = patched.readUInt32LE(8);
    expect(added).toBe(1 + 2 + 1 + 2);
    const segment0 = patched.subarray(16, 16 + 64);
    // Only pointer slot 2 (word 4) changed: a far pointer to word 0 of segment 1.
    expect(segment0.readUInt32LE(32)).toBe(2);
    expect(segment0.readUInt32LE(36)).toBe(1);
    segment0.fill(0, 32, 40);
    expect(segment0).toEqual(original.subarray(8));
    const texts = patched.subarray(16 + 64).toString('latin1');
    expect(texts).toContain('--a\0');
    expect(texts).toContain('--bcdefghij\0');
  });

  it('passes a message it does not understand through unchanged', () => {
    const truncated = Buffer.from([0, 0, 0, 0, 9, 0, 0, 0, 1, 2, 3]);
    expect(withV8Flags(truncated, ['--single-threaded'])).toBe(truncated);
    expect(withV8Flags(Buffer.alloc(8), [])).toEqual(Buffer.alloc(8));
  });
});
