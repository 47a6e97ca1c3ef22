import { WELL_KNOWN_FOLDERS } from '../graph/client.ts';
import type { GraphRequest, GraphResult } from '../graph/transport.ts';

/** Graph calls in flight at once for one mailbox (Graph throttles at 4 per app and mailbox). */
export const MAX_CONCURRENT_GRAPH_REQUESTS = 4;
/** Of those, the most background work holds (new mail, drafts, renewals): the rest stay free for reads. */
export const MAX_BACKGROUND_GRAPH_REQUESTS = 2;

/**
 * The ids of the well-known folders (inbox, sentitems, drafts, …) as Graph names them; a folder
 * the mailbox lacks is left out. `complete` is false when a look-up failed otherwise than "not
 * found": such an answer is not kept.
 */
export async function lookUpWellKnownFolders(
  send: (request: GraphRequest) => Promise<GraphResult>,
): Promise<{ found: Record<string, string>; complete: boolean }> {
  const found: Record<string, string> = {};
  let complete = true;
  await Promise.all(
    WELL_KNOWN_FOLDERS.map(async (name) => {
      const result = await send({ method: 'GET', path: `/me/mailFolders/${name}?$select=id` });
      const id = result.ok ? (result.json as { id?: unknown } | undefined)?.id : undefined;
      if (typeof id === 'string') found[name] = id;
      else if (!result.ok && result.status !== 404) complete = false;
    }),
  );
  return { found, complete };
}
