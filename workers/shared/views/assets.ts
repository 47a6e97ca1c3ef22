import { sha256 } from '@noble/hashes/sha2.js';

/**
 * A service's browser assets by URL path, each with a short hash of its content. Generated into
 * `workers/<service>/src/asset-manifest.ts` by `scripts/asset-manifest.ts` (checked by
 * test/scripts/asset-manifest.test.ts), so a changed file is a new URL and browsers never keep a
 * stale copy.
 */
export type AssetManifest = Readonly<Record<string, string>>;

/** The URL of an asset with its content hash (`/static/app.css?v=1a2b3c4d5e`). */
export function assetUrl<M extends AssetManifest>(manifest: M, path: keyof M & string): string {
  const hash = manifest[path];
  if (!hash) throw new Error(`no asset ${path} in the manifest (npx tsx scripts/asset-manifest.ts)`);
  return `${path}?v=${hash}`;
}

/** The short content hash the manifests carry: the first 10 hex digits of SHA-256. */
export function contentHash(content: string | Uint8Array): string {
  const bytes = typeof content === 'string' ? new TextEncoder().encode(content) : content;
  return Array.from(sha256(bytes).subarray(0, 5), (b) => b.toString(16).padStart(2, '0')).join('');
}
