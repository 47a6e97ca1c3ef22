import type { Reply } from './account.ts';
import { type GraphCall, ok } from './graph-call.ts';
import { guid } from './ids.ts';
import { applySelect, nextLink, option, parseSelect, parseSkip, parseTop } from './odata.ts';

/** `/me` and `/me/people` (contacts ranked by how much mail goes to and from them). */

export function currentUser(call: GraphCall): Reply {
  const u = call.account.mailbox.user;
  const entity = {
    id: u.id,
    businessPhones: [],
    displayName: u.displayName,
    givenName: u.givenName,
    jobTitle: u.jobTitle,
    mail: u.mail,
    mobilePhone: null,
    officeLocation: u.officeLocation,
    preferredLanguage: 'en-AU',
    surname: u.surname,
    userPrincipalName: u.userPrincipalName,
  };
  const select = parseSelect(call.query, Object.keys(entity), 'user');
  return ok({ '@odata.context': `${call.graphBase}/$metadata#users/$entity`, ...applySelect(entity, select) });
}

export function people(call: GraphCall): Reply {
  const mailbox = call.account.mailbox;
  const contacts = new Map<string, { name: string; address: string; score: number }>();
  for (const msg of mailbox.messages.values()) {
    for (const r of [msg.from, ...msg.toRecipients, ...msg.ccRecipients]) {
      if (!r || mailbox.isMe(r)) continue;
      const key = r.emailAddress.address.toLowerCase();
      const entry = contacts.get(key) ?? {
        name: r.emailAddress.name || r.emailAddress.address,
        address: r.emailAddress.address,
        score: 0,
      };
      entry.score += msg.folderId === mailbox.wellKnown('sentitems').id ? 3 : 1;
      contacts.set(key, entry);
    }
  }
  let people = [...contacts.values()].sort((a, b) => b.score - a.score || a.name.localeCompare(b.name));
  const searchText = option(call.query, 'search');
  if (searchText !== null) {
    const q = searchText.replace(/^"|"$/g, '').trim().toLowerCase();
    if (q) {
      people = people.filter(
        (p) =>
          p.address.toLowerCase().startsWith(q) ||
          p.name
            .toLowerCase()
            .split(/[\s.'-]+/)
            .some((word) => word.startsWith(q)) ||
          p.name.toLowerCase().startsWith(q),
      );
    }
  }
  const top = parseTop(call.query, 10);
  const skip = parseSkip(call.query);
  const max = people[0]?.score ?? 1;
  const all = people.map((p) => {
    const [givenName = '', ...rest] = p.name.split(' ');
    return {
      id: guid(`person:${p.address.toLowerCase()}`),
      displayName: p.name,
      givenName,
      surname: rest.join(' '),
      birthday: '',
      personNotes: '',
      isFavorite: false,
      jobTitle: null,
      companyName: null,
      yomiCompany: '',
      department: null,
      officeLocation: null,
      profession: '',
      userPrincipalName: '',
      imAddress: null,
      scoredEmailAddresses: [
        { address: p.address, relevanceScore: Math.round((p.score / max) * 100), selectionLikelihood: 'notSpecified' },
      ],
      phones: [],
      postalAddresses: [],
      websites: [],
      personType: { class: 'Person', subclass: 'PersonalContact' },
    };
  });
  const select = parseSelect(call.query, all[0] ? Object.keys(all[0]) : ['id', 'displayName', 'scoredEmailAddresses'], 'person');
  const page = all.slice(skip, skip + top);
  const body: Record<string, unknown> = {
    '@odata.context': `${call.graphBase}/$metadata#users('${mailbox.user.id}')/people`,
    value: page.map((p) => applySelect(p, select)),
  };
  if (skip + top < all.length)
    body['@odata.nextLink'] = nextLink(`${call.graphBase}${call.path}`, call.query, { $skip: String(skip + top) });
  return ok(body);
}
