import type { Message } from '@microsoft/microsoft-graph-types';
import { hostAllowed } from '#shared/config.ts';
import { isLoopbackHost } from '#shared/local-development.ts';
import type { GraphClient } from './graph/client.ts';

/**
 * Unsubscribing from a sender, on the person's click only. The sender's newest Inbox message
 * that carries `List-Unsubscribe` (RFC 2369) decides how:
 * - `one_click`: with `List-Unsubscribe-Post: List-Unsubscribe=One-Click` (RFC 8058) and an https
 *   URI whose host is allowed (UNSUBSCRIBE_ALLOWED_HOSTS, below), that body is POSTed to it: no
 *   cookies, no credentials, no redirects followed, 10 s at most;
 * - `mailto`: otherwise a mailto: URI becomes a draft in Drafts (never sent);
 * - `link`: otherwise the web link is shown to the person;
 * - `none`: the mail offers nothing.
 *
 * The URI comes from whoever sent the mail, so it must not reach what the Worker can reach and
 * they cannot (SSRF): an explicit allow-list entry (`host` or `host:port`, as hostAllowed reads
 * it) or, with `*`, any public host name on 443 — never an IP literal, a single-label or local
 * name, or this service's own zone. Plain http only to a loopback host listed by name (local
 * development and tests).
 */

export type UnsubscribeMethod = 'one_click' | 'mailto' | 'link' | 'none';

export interface UnsubscribeOffer {
  method: UnsubscribeMethod;
  /** The URI used (one_click, mailto) or shown (link). */
  uri: string;
  /** The message it came from. */
  messageId: string | null;
}

const MAX_HEADER = 4000;
const LOCAL_SUFFIXES = ['.localhost', '.local', '.internal', '.arpa', '.home', '.lan', '.corp'];

/** The URIs of a List-Unsubscribe value: `<uri>, <uri>` (anything outside angle brackets ignored). */
export function listUnsubscribeUris(value: string): string[] {
  return [...value.slice(0, MAX_HEADER).matchAll(/<([^<>\s]{1,2000})>/g)].map((m) => m[1]!);
}

const header = (message: Message, name: string) =>
  message.internetMessageHeaders?.find((h) => (h.name ?? '').toLowerCase() === name.toLowerCase())?.value ?? undefined;

/** How a message lets its sender be left, best first (see above), before the host check. */
export function offerOf(message: Message): UnsubscribeOffer | undefined {
  const list = header(message, 'List-Unsubscribe');
  if (!list) return undefined;
  const uris = listUnsubscribeUris(list);
  const oneClick = (header(message, 'List-Unsubscribe-Post') ?? '').trim().toLowerCase() === 'list-unsubscribe=one-click';
  const web = uris.find((u) => /^https?:\/\//i.test(u));
  const mailto = uris.find((u) => /^mailto:/i.test(u));
  const id = message.id ?? null;
  if (oneClick && web) return { method: 'one_click', uri: web, messageId: id };
  if (mailto) return { method: 'mailto', uri: mailto, messageId: id };
  if (web) return { method: 'link', uri: web, messageId: id };
  return undefined;
}

/** Whether a one-click POST may go to this URL (see above). `ownHost`: this service's host. */
export function unsubscribeTargetAllowed(raw: string, allowed: readonly string[], ownHost: string): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  const host = url.hostname.toLowerCase();
  const explicit = allowed.filter((entry) => entry !== '*');
  if (url.protocol === 'http:') return isLoopbackHost(host) && hostAllowed(explicit, host, Number(url.port || 80));
  if (url.protocol !== 'https:') return false;
  const port = Number(url.port || 443);
  if (hostAllowed(explicit, host, port)) return true;
  if (!allowed.includes('*') || port !== 443) return false;
  // a public DNS name: labels of letters, digits and hyphens, a top-level label with a letter
  if (!/^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(host)) return false;
  if (LOCAL_SUFFIXES.some((suffix) => host.endsWith(suffix)) || isLoopbackHost(host)) return false;
  // this service's zone (mail.<zone> → <zone>): its other services are not for mail senders to call
  const zone = ownHost.toLowerCase().split('.').slice(1).join('.');
  return !(zone.includes('.') && (host === zone || host.endsWith(`.${zone}`)));
}

/** RFC 8058's POST: the fixed body, nothing of the person's. Answers the outcome's detail. */
export async function oneClick(uri: string, timeoutMs = 10_000): Promise<{ ok: boolean; detail: string }> {
  try {
    const res = await fetch(uri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return res.ok ? { ok: true, detail: `HTTP ${res.status}` } : { ok: false, detail: `the list answered HTTP ${res.status}` };
  } catch (err) {
    return {
      ok: false,
      detail: err instanceof Error && err.name === 'TimeoutError' ? 'the list did not answer in time' : 'the list could not be reached',
    };
  }
}

const ADDRESS = /^[^\s@<>(),;:"]+@[^\s@<>(),;:"]+\.[^\s@<>(),;:"]+$/;

/** A mailto: URI's recipients, subject and body (RFC 6068); undefined when it names no valid address. */
export function parseMailto(uri: string): { to: string[]; subject: string; body: string } | undefined {
  const match = /^mailto:([^?]*)(?:\?(.*))?$/i.exec(uri);
  if (!match) return undefined;
  const decode = (s: string) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  };
  const params = new URLSearchParams((match[2] ?? '').replace(/\+/g, '%2B'));
  const to = [...decode(match[1] ?? '').split(','), ...(params.get('to') ?? '').split(',')]
    .map((a) => a.trim())
    .filter((a) => ADDRESS.test(a))
    .slice(0, 5);
  if (!to.length) return undefined;
  return {
    to,
    subject: (params.get('subject') ?? 'unsubscribe').slice(0, 255),
    body: (params.get('body') ?? 'unsubscribe').slice(0, 2000),
  };
}

/** The draft a mailto: unsubscribe asks for, in Drafts; never sent. Answers its id. */
export async function mailtoDraft(graph: GraphClient, uri: string): Promise<string | undefined> {
  const parsed = parseMailto(uri);
  if (!parsed) return undefined;
  const draft = await graph.createDraft({
    subject: parsed.subject,
    body: { contentType: 'text', content: parsed.body },
    toRecipients: parsed.to.map((address) => ({ emailAddress: { address } })),
  });
  return draft.id ?? undefined;
}

/** The sender's newest Inbox messages with their headers: the first that offers a way out. */
export async function findOffer(graph: GraphClient, sender: string): Promise<UnsubscribeOffer | undefined> {
  const filter = `from/emailAddress/address eq '${sender.replace(/'/g, "''")}'`;
  const page = await graph.page<Message>(
    `/me/mailFolders/inbox/messages?$filter=${encodeURIComponent(filter)}&$select=id,internetMessageHeaders&$top=10`,
  );
  for (const message of page.value) {
    const offer = offerOf(message);
    if (offer) return offer;
  }
  return undefined;
}
