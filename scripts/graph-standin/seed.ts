import { newsletterHeaders } from './unsubscribe.ts';
import { type Mailbox, type MailUser, type Recipient, type StoredFolder, recipient, textToHtml } from './mailbox.ts';
import { guid } from './ids.ts';
import { textPdf } from './pdf.ts';

/**
 * The seeded mailbox of a racing media business's bookings and media desk: trainers, owners,
 * stewards, media and venue bookings; threads with replies across Inbox, Sent Items and Drafts;
 * user folders; attachments (PDF, CSV, calendar); a mix of read and unread. Deterministic: the
 * same ids, people, subjects and bodies every time; dates count back from when it is seeded.
 */

export const DEFAULT_USER: MailUser = {
  id: 'b6f0c7d2-3e41-4a8b-9c5d-1f2e3a4b5c6d',
  displayName: 'Jess Carter',
  givenName: 'Jess',
  surname: 'Carter',
  mail: 'jess.carter@southerncross-racing.example',
  userPrincipalName: 'jess.carter@southerncross-racing.example',
  jobTitle: 'Media & Bookings Manager',
  officeLocation: 'Flemington office',
};

export type SeedSummary = { messages: number; threads: number; folders: number; attachments: number };

type Person = { name: string; address: string; org: string; phone: string; role: Role };
type Role = 'trainer' | 'owner' | 'steward' | 'media' | 'booking' | 'colleague';

const ORG = 'Southern Cross Racing Media';

const person = (name: string, address: string, org: string, phone: string, role: Role): Person => ({ name, address, org, phone, role });

/** Who writes to the mailbox: name, address, organisation, phone, role. */
const PEOPLE: Person[] = [
  person('Tom Bradshaw', 'tom@bradshawracing.example', 'Bradshaw Racing', '0412 555 101', 'trainer'),
  person('Maree Kellett', 'maree.kellett@kellettstables.example', 'Kellett Stables', '0423 555 102', 'trainer'),
  person("Danny O'Shea", 'danny@osheathoroughbreds.example', "O'Shea Thoroughbreds", '0434 555 103', 'trainer'),
  person('Priya Raman', 'priya.raman@ramanracing.example', 'Raman Racing', '0445 555 104', 'trainer'),
  person('Sam Whitlock', 'sam@whitlockequine.example', 'Whitlock Equine', '0456 555 105', 'trainer'),
  person('Geoff Hadley', 'geoff@hadleybloodstock.example', 'Hadley Bloodstock', '0467 555 201', 'owner'),
  person('Linda Osei', 'linda.osei@mailbox.example', 'Osei Family Racing', '0478 555 202', 'owner'),
  person('Carol Finch', 'carol.finch@finchpartners.example', 'Finch Partners', '0489 555 203', 'owner'),
  person('Kate Harrington', 'kate@harringtonsyndicate.example', 'Harrington Syndicate', '0490 555 204', 'owner'),
  person('Paul Renner', 'paul.renner@racingintegrity.example', 'Racing Integrity Stewards', '03 9555 0301', 'steward'),
  person('Angela Moss', 'angela.moss@racingintegrity.example', 'Racing Integrity Stewards', '03 9555 0302', 'steward'),
  person('Nick Tran', 'nick.tran@trackwire.example', 'Trackwire News', '0401 555 401', 'media'),
  person('Renée Laurent', 'renee@tracktalkradio.example', 'Track Talk Radio', '0402 555 402', 'media'),
  person('Ben Ogilvie', 'ben@ogilviephoto.example', 'Ogilvie Photography', '0403 555 403', 'media'),
  person('Riverside Functions', 'events@riversidefunctions.example', 'Riverside Function Centre', '03 9555 0501', 'booking'),
  person('Eastfield Racecourse Events', 'bookings@eastfieldracecourse.example', 'Eastfield Racecourse', '03 9555 0502', 'booking'),
  person('Coastline Catering', 'orders@coastlinecatering.example', 'Coastline Catering', '03 9555 0503', 'booking'),
  person('Marcus Webb', 'marcus.webb@southerncross-racing.example', ORG, '03 9555 0601', 'colleague'),
  person('Aisha Khan', 'aisha.khan@southerncross-racing.example', ORG, '03 9555 0602', 'colleague'),
];

const HORSES = [
  'Midnight Harbour',
  'Copper Ridge',
  'Silent Verdict',
  'Golden Wattle',
  'Storm Courier',
  'Lady Kestrel',
  'Iron Bark',
  'Southern Echo',
  'Quick Ledger',
  'Bay of Fires',
  'Red Gum Lane',
  'Starboard Light',
  'Maple Drive',
  'Ocean Rumour',
  'Flinders Flyer',
  'Tin Soldier',
  'Wild Acacia',
  'Kingfisher Bay',
  'Brass Monkey',
  'Velvet Thunder',
  'Coral Sea',
  'High Plains',
  'Lucky Penny',
  'Dusty Miller',
];

const COURSES = [
  'Flemington',
  'Caulfield',
  'Moonee Valley',
  'Sandown',
  'Eastfield',
  'Geelong',
  'Ballarat',
  'Bendigo',
  'Pakenham',
  'Cranbourne',
];

const DISCLAIMER =
  'This email and any attachments are confidential and may be privileged. If you are not the intended recipient, please notify the sender and delete it. Any views expressed are those of the author.';

/** A small seeded PRNG (mulberry32): the same sequence on every run. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
    chance: (p: number) => next() < p,
  };
}

type Random = ReturnType<typeof prng>;

type Topic = {
  role: Role;
  subject: (c: Ctx) => string;
  /** the opening message and the replies, alternating between the correspondent and the mailbox owner */
  turns: ((c: Ctx) => string)[];
  attachment?: (c: Ctx) => { name: string; contentType: string; bytes: Buffer } | null;
  folder?: string;
};

type Ctx = {
  horse: string;
  horse2: string;
  course: string;
  race: number;
  day: string;
  time: string;
  person: Person;
  me: MailUser;
  n: number;
  amount: number;
};

const TOPICS: Topic[] = [
  {
    role: 'trainer',
    subject: (c) => `${c.horse} – ${c.course} nomination, race ${c.race}`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nWe've nominated ${c.horse} for race ${c.race} at ${c.course} on ${c.day}. Could you pencil in a short piece for the preview show? He galloped well on Tuesday and the owners are keen on some coverage.\n\nNominations sheet attached.`,
      (c) =>
        `Thanks ${first(c.person)},\n\nHappy to include ${c.horse} in the preview. Could you confirm the rider once acceptances are in, and whether he'll have blinkers on?`,
      (c) => `Rider is confirmed, and yes, blinkers first time. Barrier draw is out Thursday morning – I'll send it through then.`,
      (c) => `Perfect, thanks. We'll film a short interview at the stables on ${c.day} morning if that suits – around ${c.time}?`,
    ],
    attachment: (c) => ({
      name: 'nominations.csv',
      contentType: 'text/csv',
      bytes: Buffer.from(
        `horse,course,race,date,trainer\n${c.horse},${c.course},${c.race},${c.day},${c.person.name}\n${c.horse2},${c.course},${c.race + 1},${c.day},${c.person.name}\n`,
      ),
    }),
    folder: 'Trainers',
  },
  {
    role: 'trainer',
    subject: (c) => `Stable visit for the ${c.course} carnival feature`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nFollowing up on the carnival feature – we can host the crew at the stables any morning next week before ${c.time}. ${c.horse} and ${c.horse2} will both be working.`,
      (c) => `That's great, ${first(c.person)}. Would Wednesday work? We'd bring a two-person crew and Ben for stills.`,
      (c) => `Wednesday is fine. Park at the back gate and ring me when you arrive.`,
    ],
    folder: 'Trainers',
  },
  {
    role: 'trainer',
    subject: (c) => `Scratching: ${c.horse} (${c.course} R${c.race})`,
    turns: [
      (c) =>
        `Hi all,\n\nJust letting you know ${c.horse} has been scratched from race ${c.race} at ${c.course} – a stone bruise found this morning. Vet certificate has gone to the stewards. Please pull him from the preview.`,
      (c) =>
        `Thanks for the heads-up ${first(c.person)}, sorry to hear it. We'll swap in ${c.horse2} for the segment. Hope he's back soon.`,
    ],
  },
  {
    role: 'owner',
    subject: (c) => `Owners' tickets for ${c.course} on ${c.day}`,
    turns: [
      (c) =>
        `Hello ${c.me.givenName},\n\nOur syndicate has ${c.n} members wanting to attend ${c.course} on ${c.day} to watch ${c.horse}. Are owners' badges arranged through you or the club?`,
      (c) =>
        `Hi ${first(c.person)},\n\nBadges come through the club, but I can book the marquee for your group. ${c.n} guests at $${c.amount} a head includes lunch – shall I reserve it?`,
      (c) => `Yes please, go ahead and reserve for ${c.n}. Invoice to the syndicate address is fine.`,
      () => `Done – confirmation attached. See you on the day.`,
    ],
    attachment: (c) => ({
      name: `Marquee booking ${c.course}.pdf`,
      contentType: 'application/pdf',
      bytes: textPdf(`Marquee booking – ${c.course}`, [
        `Group: ${c.person.org}`,
        `Guests: ${c.n}`,
        `Date: ${c.day}`,
        `Price per head: $${c.amount}`,
        `Horse: ${c.horse}`,
        'Payment due 7 days before the meeting.',
      ]),
    }),
    folder: 'Owners',
  },
  {
    role: 'owner',
    subject: (c) => `Photos of ${c.horse}'s win`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nWhat a day at ${c.course}! Is there any chance of getting the high-resolution photos of ${c.horse} in the mounting yard and the presentation? Happy to pay for prints.`,
      (c) => `Congratulations ${first(c.person)}! I've asked Ben Ogilvie to send the full set; prints are $${c.amount} each for A3.`,
    ],
    folder: 'Owners',
  },
  {
    role: 'steward',
    subject: (c) => `Stewards' report – ${c.course} race ${c.race}`,
    turns: [
      (c) =>
        `Dear ${c.me.givenName},\n\nPlease find attached the stewards' report for race ${c.race} at ${c.course} on ${c.day}, including the inquiry into interference near the 400m involving ${c.horse} and ${c.horse2}.\n\nThe report may be quoted in coverage; the vision is not to be broadcast before 5pm.`,
      (c) => `Thank you ${first(c.person)}. We'll hold the vision until after 5pm and quote the findings in tonight's wrap.`,
      () => `Noted, thank you.`,
    ],
    attachment: (c) => ({
      name: `Stewards report ${c.course} R${c.race}.pdf`,
      contentType: 'application/pdf',
      bytes: textPdf(`Stewards' report – ${c.course} race ${c.race}`, [
        `Meeting: ${c.course}, ${c.day}`,
        `Inquiry: interference near the 400m involving ${c.horse} and ${c.horse2}.`,
        'Finding: the rider of the first-named horse shifted in without sufficient clearance.',
        'Penalty: careless riding, suspended 8 meetings.',
        'Vision embargoed until 5pm.',
      ]),
    }),
    folder: 'Stewards',
  },
  {
    role: 'steward',
    subject: (c) => `Media access to the ${c.course} stewards' room`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nA reminder that media access to the stewards' room at ${c.course} is by prior arrangement only. Please send names of any staff attending ${c.day} by ${c.time}.`,
      () => `Thanks – it will be Aisha Khan and myself. Both accredited.`,
    ],
    folder: 'Stewards',
  },
  {
    role: 'media',
    subject: (c) => `Interview request: ${c.person.org} – ${c.horse}`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nWe'd love ten minutes with the connections of ${c.horse} ahead of ${c.course} on ${c.day}. Could you put me in touch with the trainer? Live cross around ${c.time} if possible.`,
      (c) =>
        `Hi ${first(c.person)},\n\nI'll ask the stable and come back to you today. Live at ${c.time} may be tight – would a pre-record work?`,
      () => `A pre-record works fine. Thanks!`,
    ],
    folder: 'Media',
  },
  {
    role: 'media',
    subject: (c) => `Accreditation for ${c.course} carnival`,
    turns: [
      (c) =>
        `Hello,\n\nPlease find attached our accreditation form for the ${c.course} carnival. We have ${c.n} staff attending across the week.`,
      (c) => `Received, thanks ${first(c.person)}. Passes will be at the media centre from 9am on ${c.day}.`,
    ],
    attachment: (c) => ({
      name: 'Media accreditation form.pdf',
      contentType: 'application/pdf',
      bytes: textPdf(`Media accreditation – ${c.course} carnival`, [
        `Organisation: ${c.person.org}`,
        `Contact: ${c.person.name}`,
        `Staff attending: ${c.n}`,
        `First day: ${c.day}`,
      ]),
    }),
    folder: 'Media',
  },
  {
    role: 'booking',
    subject: (c) => `Booking confirmation – ${c.person.org}, ${c.day}`,
    turns: [
      (c) =>
        `Dear ${c.me.givenName},\n\nThank you for your booking for ${c.day}. We have you down for ${c.n} guests from ${c.time}. The deposit of $${c.amount * 10} is due within 14 days.\n\nConfirmation and calendar invitation attached.`,
      (c) => `Thanks – deposit will be paid this week. Could we add a vegetarian option for ${Math.max(2, Math.floor(c.n / 5))} guests?`,
      () => `Of course, noted on the booking.`,
    ],
    attachment: (c) => ({ name: 'booking.ics', contentType: 'text/calendar', bytes: Buffer.from(ics(c)) }),
    folder: 'Bookings',
  },
  {
    role: 'booking',
    subject: (c) => `Quote: catering for ${c.n} at ${c.course}`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nAs requested, our quote for catering ${c.n} guests at ${c.course} on ${c.day} is $${c.amount * c.n}, including staff and equipment hire.`,
      (c) => `Thanks. Could you do it for $${Math.floor(c.amount * c.n * 0.9)} if we drop the dessert course?`,
      (c) => `We can do $${Math.floor(c.amount * c.n * 0.92)} without dessert. Let us know by Friday.`,
    ],
    folder: 'Bookings',
  },
  {
    role: 'colleague',
    subject: (c) => `Running sheet for Saturday – ${c.course}`,
    turns: [
      (c) =>
        `Hi ${c.me.givenName},\n\nDraft running sheet for ${c.course} below. Can you check the interview slots? ${c.horse}'s trainer is pencilled in for ${c.time}.`,
      () => `Looks good. I've moved the stewards' segment after race 6 so we don't clash with the presentation.`,
      () => `Great, locking it in.`,
    ],
  },
];

function first(p: Person) {
  return p.name.split(' ')[0]!;
}

function ics(c: Ctx): string {
  const date = c.day.replace(/-/g, '');
  return [
    'BEGIN:VCALENDAR',
    'VERSION:2.0',
    'PRODID:-//Southern Cross Racing Media//Bookings//EN',
    'BEGIN:VEVENT',
    `UID:${guid(`ics:${c.day}:${c.person.address}`)}`,
    `DTSTART:${date}T010000Z`,
    `DTEND:${date}T060000Z`,
    `SUMMARY:${c.person.org} booking`,
    `LOCATION:${c.course}`,
    'END:VEVENT',
    'END:VCALENDAR',
    '',
  ].join('\r\n');
}

function signature(p: Person | MailUser, role: 'them' | 'me', withDisclaimer: boolean): string {
  const lines =
    role === 'me'
      ? ['Kind regards,', (p as MailUser).displayName, `${(p as MailUser).jobTitle} | ${ORG}`, '03 9555 0600']
      : ['Kind regards,', (p as Person).name, (p as Person).org, (p as Person).phone];
  return `\n\n${lines.join('\n')}${withDisclaimer ? `\n\n${DISCLAIMER}` : ''}`;
}

export function seedMailbox(mailbox: Mailbox, anchorMs = Date.now()): SeedSummary {
  const r = prng(20261123);
  const me = mailbox.user;
  const owner = mailbox.me();
  const inbox = mailbox.wellKnown('inbox');
  const folders: Record<string, StoredFolder> = {
    Trainers: mailbox.createFolder(inbox.id, 'Trainers'),
    Owners: mailbox.createFolder(inbox.id, 'Owners'),
    Stewards: mailbox.createFolder(inbox.id, 'Stewards'),
    Media: mailbox.createFolder(mailbox.rootFolderId, 'Media'),
    Bookings: mailbox.createFolder(mailbox.rootFolderId, 'Bookings'),
  };
  folders['Spring Carnival'] = mailbox.createFolder(folders.Bookings!.id, 'Spring Carnival');
  folders.Invoices = mailbox.createFolder(mailbox.rootFolderId, 'Invoices');
  mailbox.createFolder(mailbox.rootFolderId, 'Old Import', true);
  const sent = mailbox.wellKnown('sentitems');
  const drafts = mailbox.wellKnown('drafts');
  const archive = mailbox.wellKnown('archive');
  const deleted = mailbox.wellKnown('deleteditems');
  const junk = mailbox.wellKnown('junkemail');
  const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  let threads = 0;
  let attachments = 0;
  const THREADS = 140;

  for (let t = 0; t < THREADS; t++) {
    const topic = r.pick(TOPICS);
    const candidates = PEOPLE.filter((p) => p.role === topic.role);
    const person = r.pick(candidates);
    const horse = r.pick(HORSES);
    let horse2 = r.pick(HORSES);
    if (horse2 === horse) horse2 = HORSES[(HORSES.indexOf(horse) + 1) % HORSES.length]!;
    // Older threads further back; a handful within the last day.
    const startAgoMs = Math.floor(Math.pow(r.next(), 1.6) * 75 * 86_400_000) + 30 * 60_000;
    const start = anchorMs - startAgoMs;
    const ctx: Ctx = {
      horse,
      horse2,
      course: r.pick(COURSES),
      race: r.int(1, 9),
      day: dayOf(start + r.int(3, 12) * 86_400_000),
      time: `${r.int(6, 11)}:${r.pick(['00', '15', '30', '45'])}am`,
      person,
      me,
      n: r.int(6, 40),
      amount: r.int(45, 180),
    };
    const them = recipient(person.name, person.address);
    const cc: Recipient[] =
      person.role !== 'colleague' && r.chance(0.25) ? [recipient('Marcus Webb', 'marcus.webb@southerncross-racing.example')] : [];
    const length = Math.min(topic.turns.length, r.int(1, topic.turns.length));
    const subject = topic.subject(ctx);
    let conversationId: string | undefined;
    let previousMessageId: string | null = null;
    let at = start;
    const userFolder =
      topic.folder === 'Bookings' && r.chance(0.4) ? folders['Spring Carnival']! : topic.folder ? folders[topic.folder]! : inbox;
    const inFolder = r.chance(0.45) ? userFolder : r.chance(0.12) ? archive : inbox;
    const withDisclaimer = r.chance(0.4);
    let lastFromThem = true;
    for (let i = 0; i < length; i++) {
      const fromThem = i % 2 === 0;
      if (at > anchorMs - 60_000) break;
      lastFromThem = fromThem;
      const text = topic.turns[i]!(ctx) + signature(fromThem ? person : me, fromThem ? 'them' : 'me', fromThem && withDisclaimer);
      const attachment = i === 0 && topic.attachment && r.chance(0.8) ? topic.attachment(ctx) : null;
      if (attachment) attachments += 1;
      const ageMs = anchorMs - at;
      const message = mailbox.addMessage(
        {
          folderId: fromThem ? inFolder.id : sent.id,
          subject: i === 0 ? subject : `RE: ${subject}`,
          body: { contentType: 'html', content: textToHtml(text) },
          from: fromThem ? them : owner,
          toRecipients: fromThem ? [owner] : [them],
          ccRecipients: cc,
          conversationId,
          inReplyTo: previousMessageId,
          receivedDateTime: iso(at),
          sentDateTime: iso(at - r.int(2, 40) * 1000),
          isRead: !fromThem || (ageMs < 3 * 86_400_000 ? r.chance(0.3) : r.chance(0.93)),
          importance: person.role === 'steward' && i === 0 ? 'high' : 'normal',
          attachments: attachment ? [attachment] : [],
        },
        { notify: false },
      );
      conversationId = message.conversationId;
      previousMessageId = message.internetMessageId;
      at += r.int(25, 60 * 30) * 60_000;
    }
    // Some threads wait on an unsent reply in Drafts.
    if (lastFromThem && r.chance(0.18) && conversationId) {
      const draftAt = Math.min(at, anchorMs - 5 * 60_000);
      mailbox.addMessage(
        {
          folderId: drafts.id,
          subject: `RE: ${subject}`,
          body: {
            contentType: 'html',
            content: textToHtml(`Hi ${first(person)},\n\nThanks for this – I'll come back to you shortly.${signature(me, 'me', false)}`),
          },
          from: owner,
          toRecipients: [them],
          ccRecipients: cc,
          conversationId,
          inReplyTo: previousMessageId,
          createdDateTime: iso(draftAt),
          receivedDateTime: iso(draftAt),
          sentDateTime: null,
          isRead: true,
          isDraft: true,
        },
        { notify: false },
      );
    }
    threads += 1;
  }

  // Newsletters and notices: single messages, some already deleted.
  for (let i = 0; i < 30; i++) {
    const at = anchorMs - r.int(1, 60 * 24 * 70) * 60_000;
    const course = r.pick(COURSES);
    const club = { name: `${course} Racing Club`, address: `news@${course.toLowerCase().replace(/\s+/g, '')}rc.example` };
    const folder = i % 6 === 5 ? deleted : i % 4 === 3 ? archive : inbox;
    mailbox.addMessage(
      {
        folderId: folder.id,
        subject: `${course} Racing Club newsletter – ${new Date(at).toLocaleDateString('en-AU', { month: 'long', year: 'numeric', timeZone: 'UTC' })}`,
        body: {
          contentType: 'html',
          content: textToHtml(
            `${course} Racing Club members' news.\n\nFeatured: ${r.pick(HORSES)} and ${r.pick(HORSES)} headline the next meeting. Track rated Good 4, rail in true position.\n\nUnsubscribe at any time from your member profile.`,
          ),
        },
        from: recipient(club.name, club.address),
        toRecipients: [owner],
        receivedDateTime: iso(at),
        sentDateTime: iso(at - 5000),
        isRead: r.chance(0.7),
        extraHeaders: newsletterHeaders(club.address, `m${i}`),
      },
      { notify: false },
    );
  }
  // Invoices, filed away, each with its PDF.
  for (let i = 0; i < 8; i++) {
    const at = anchorMs - (i * 9 + r.int(1, 8)) * 86_400_000;
    const supplier = r.pick(PEOPLE.filter((p) => p.role === 'booking' || p.address.includes('photo')));
    const amount = r.int(8, 95) * 50;
    const number = `INV-${2400 + i * 7}`;
    mailbox.addMessage(
      {
        folderId: folders.Invoices!.id,
        subject: `Invoice ${number} from ${supplier.org}`,
        body: {
          contentType: 'html',
          content: textToHtml(
            `Dear ${me.givenName},\n\nPlease find attached invoice ${number} for $${amount}.00, due within 30 days.${signature(supplier, 'them', true)}`,
          ),
        },
        from: recipient(supplier.name, supplier.address),
        toRecipients: [owner],
        receivedDateTime: iso(at),
        sentDateTime: iso(at - 3000),
        isRead: true,
        attachments: [
          {
            name: `${number}.pdf`,
            contentType: 'application/pdf',
            bytes: textPdf(`Tax invoice ${number}`, [
              `From: ${supplier.org}`,
              `To: ${ORG}`,
              `Amount: $${amount}.00 (GST incl.)`,
              `Issued: ${dayOf(at)}`,
              'Terms: 30 days',
            ]),
          },
        ],
      },
      { notify: false },
    );
    attachments += 1;
  }
  // Junk.
  const spam = [
    ['Claim your prize now!!!', 'Prize Desk', 'winner@prize-desk.example'],
    ['Guaranteed tips – 20 winners in a row', 'Sure Thing Tips', 'tips@surething.example'],
    ['Your account will be suspended', 'Security Team', 'security@acc0unt-check.example'],
    ['Cheap horse floats direct from factory', 'Float Sales', 'sales@floats-direct.example'],
  ] as const;
  spam.forEach(([subject, name, address], i) => {
    const at = anchorMs - (i + 1) * 37 * 3_600_000;
    mailbox.addMessage(
      {
        folderId: junk.id,
        subject,
        body: { contentType: 'html', content: textToHtml(`${subject}\n\nClick here to find out more.`) },
        from: recipient(name, address),
        toRecipients: [owner],
        receivedDateTime: iso(at),
        sentDateTime: iso(at),
        isRead: false,
      },
      { notify: false },
    );
  });
  return { messages: mailbox.messages.size, threads, folders: mailbox.folders.size, attachments };
}

/** A new inbound message, for the control API's "deliver now": from a known correspondent unless given. */
export function inboundMessage(mailbox: Mailbox, n: number): { subject: string; text: string; from: Recipient } {
  const person = PEOPLE[n % PEOPLE.length]!;
  const horse = HORSES[n % HORSES.length]!;
  const course = COURSES[n % COURSES.length]!;
  return {
    subject: `${horse} – update for ${course}`,
    text: `Hi ${mailbox.user.givenName},\n\nQuick update on ${horse} ahead of ${course}: all on track for the weekend.${signature(person, 'them', false)}`,
    from: recipient(person.name, person.address),
  };
}
