import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * Makes every workerd that Miniflare starts from this process run with these V8 flags: Miniflare
 * spawns MINIFLARE_WORKERD_PATH instead of its own binary, and ./workerd adds the flags to the
 * config on its way in (Miniflare has no option for workerd's `v8Flags` field).
 */
export function useWorkerdV8Flags(flags: string[]): void {
  // The package's CommonJS `default` export is the binary's path, however this module is loaded.
  process.env.WORKERD_BINARY ??= (createRequire(import.meta.url)('workerd') as { default: string }).default;
  process.env.WORKERD_NODE ??= process.execPath;
  process.env.WORKERD_V8_FLAGS = flags.join(' ');
  process.env.MINIFLARE_WORKERD_PATH = fileURLToPath(new URL('./workerd', import.meta.url));
}
