import type { Reply } from './account.ts';
import { handleMasterCategories } from './categories.ts';
import { mailFolders } from './folders.ts';
import { type GraphCall, READ, SEND, badMethodOrPath, need, notFoundSegment } from './graph-call.ts';
import { messages, sendMail } from './messages.ts';
import { currentUser, people } from './people.ts';
import type { SubscriptionHub } from './subscriptions.ts';

/**
 * Graph under `/v1.0`: routes a call to its resource (the user, people, mail folders, messages,
 * master categories, subscriptions) once the token is checked.
 */
export class GraphApi {
  constructor(private readonly subscriptions: SubscriptionHub) {}

  async handle(call: GraphCall): Promise<Reply> {
    const s = call.segments;
    const m = call.method;
    const lower = s.map((x, i) => (isFixedSegment(i, s) ? x.toLowerCase() : x));
    const at = (i: number) => lower[i];

    if (at(0) === 'subscriptions') {
      need(call, READ);
      if (s.length === 1 && m === 'GET') return this.subscriptions.list(call);
      if (s.length === 1 && m === 'POST') return this.subscriptions.create(call);
      if (s.length === 2 && m === 'GET') return this.subscriptions.get(call, s[1]!);
      if (s.length === 2 && m === 'PATCH') return this.subscriptions.update(call, s[1]!);
      if (s.length === 2 && m === 'DELETE') return this.subscriptions.remove(call, s[1]!);
      throw badMethodOrPath(call);
    }
    if (at(0) !== 'me') throw notFoundSegment(s[0] ?? '');
    if (s.length === 1) {
      if (m !== 'GET') throw badMethodOrPath(call);
      need(call, ['User.Read']);
      return currentUser(call);
    }
    switch (at(1)) {
      case 'mailfolders':
        return mailFolders(call, s.slice(2), lower.slice(2));
      case 'messages':
        return messages(call, s.slice(2), lower.slice(2), null);
      case 'sendmail':
        if (s.length !== 2 || m !== 'POST') throw badMethodOrPath(call);
        need(call, SEND);
        return sendMail(call);
      case 'outlook':
        return handleMasterCategories(call, call.account.mailbox, s.slice(2));
      case 'people':
        if (s.length !== 2 || m !== 'GET') throw badMethodOrPath(call);
        need(call, ['People.Read']);
        return people(call);
      default:
        throw notFoundSegment(s[1]!);
    }
  }
}

/** Segment names (not ids) compare case-insensitively, as Graph's do. */
function isFixedSegment(i: number, s: string[]): boolean {
  if (i <= 1) return true;
  const prev = s[i - 1]!.toLowerCase();
  return !(prev === 'mailfolders' || prev === 'messages' || prev === 'attachments' || prev === 'childfolders' || prev === 'subscriptions');
}
