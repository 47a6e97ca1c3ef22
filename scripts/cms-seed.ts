import { parseArgs } from 'node:util';
import { COURSE_PROFILES } from './racing/courses.ts';
import { horseName, personName } from './racing/names.ts';
import { Random } from './racing/random.ts';
import { STAKES_NAMES } from './racing/words.ts';
import { racingToday } from './racing-today.ts';
import { devStateDir, executeD1 } from './workers.ts';

const CONFIG = 'workers/cms/wrangler.toml';
const DAY_MS = 86_400_000;

export const SEED_SITES = [
  { name: 'Racing Today', url: 'https://racingtoday.example' },
  { name: 'Turf Monthly', url: 'https://turfmonthly.example' },
  { name: 'Harness Weekly', url: 'https://harnessweekly.example' },
  { name: 'Greyhound Post', url: 'https://greyhoundpost.example' },
] as const;
export const SEED_NEWS_TYPES = ['News', 'Results', 'Previews', 'Tips', 'Features'] as const;
const AUTHORS = 12;
const CONTRIBUTORS = 8;

export interface CmsSeedOptions {
  /** Number of stories (default 300). */
  stories?: number;
  seed?: number;
  /** Stories are published over the year up to this day, yyyy-mm-dd (default: today in Sydney). */
  anchor?: string;
  /** The tags a Restricted story's content holds (the Worker's RESTRICTED_CONTENT_TAGS). */
  restrictedTags?: readonly string[];
  /** Paragraphs of content per story (default 3; the bench uses 1). */
  paragraphs?: number;
}

export type SeedStory = {
  id: number;
  title: string;
  summary: string;
  content: string;
  accessScope: 'Public' | 'Registered' | 'Subscriber' | 'Restricted';
  visible: boolean;
  breakout: boolean;
  authorId: number | null;
  contributorId: number | null;
  storyImageId: number | null;
  parentId: number | null;
  sortOrder: number;
  publishedAt: number;
  siteIds: number[];
  newsTypeIds: number[];
};

export type CmsSeedData = {
  sites: { id: number; name: string; url: string }[];
  newsTypes: { id: number; siteId: number; name: string }[];
  authors: { id: number; name: string; email: string }[];
  contributors: { id: number; name: string }[];
  stories: SeedStory[];
};

const SCOPES = [
  ['Public', 60],
  ['Registered', 20],
  ['Subscriber', 12],
  ['Restricted', 8],
] as const;

/** Deterministic CMS content: same options, same rows (ids included). */
export function generateCmsSeed(options: CmsSeedOptions = {}): CmsSeedData {
  const count = options.stories ?? 300;
  const seed = options.seed ?? 1;
  const anchor = Date.parse(`${options.anchor ?? racingToday()}T00:00:00Z`);
  const tags = options.restrictedTags ?? ['[members-only]', '[/members-only]'];
  const paragraphs = options.paragraphs ?? 3;
  const people = new Random(seed, 'cms-people');
  const draw = new Random(seed, 'cms-stories');
  const family = new Random(seed, 'cms-families');

  const sites = SEED_SITES.map((site, i) => ({ id: i + 1, ...site }));
  const newsTypes = sites.flatMap((site) =>
    SEED_NEWS_TYPES.map((name, k) => ({ id: (site.id - 1) * SEED_NEWS_TYPES.length + k + 1, siteId: site.id, name })),
  );
  const authors = Array.from({ length: AUTHORS }, (_, i) => {
    const name = personName(people);
    return { id: i + 1, name, email: `${name.toLowerCase().replace(/[^a-z]+/g, '.')}@racingtoday.example` };
  });
  const contributors = Array.from({ length: CONTRIBUTORS }, (_, i) => ({ id: i + 1, name: personName(people) }));
  const courses = COURSE_PROFILES.map((c) => c.name);

  // Publication times first, so ids rise with time as they would in a newsroom.
  const times = Array.from({ length: count }, () => anchor - draw.int(0, 364) * DAY_MS + draw.int(6 * 60, 22 * 60) * 60_000).sort(
    (a, b) => a - b,
  );
  const stories: SeedStory[] = times.map((publishedAt, i) => {
    const horse = horseName(draw);
    const course = draw.pick(courses);
    const race = `${draw.pick(STAKES_NAMES)} ${draw.pick(['Stakes', 'Handicap', 'Quality', 'Cup', 'Plate'])}`;
    const person = personName(draw);
    const title = draw.pick([
      `${horse} takes the ${race} at ${course}`,
      `${person} eyes the ${race} with ${horse}`,
      `Preview: ${course}, ${race}`,
      `${horse} scratched from the ${race}`,
      `Best bets for ${course}`,
      `${person} on ${horse}: "ready to go"`,
      `Results: ${race} at ${course}`,
    ]);
    const accessScope = draw.weighted(SCOPES);
    const body = Array.from(
      { length: paragraphs },
      () =>
        `<p>${horse} ${draw.pick(['trialled well', 'worked on the course proper', 'drew barrier ' + draw.int(1, 16), 'returns from a spell'])} ahead of the ${race} at ${course}, ${person} said.</p>`,
    ).join('\n');
    const content =
      accessScope === 'Restricted' ? `${body}\n${tags[0] ?? ''}<p>Full form analysis for members.</p>${tags.slice(1).join('')}` : body;
    const siteCount = draw.chance(0.2) ? 2 : 1;
    const siteIds = draw
      .shuffle(sites.map((s) => s.id))
      .slice(0, siteCount)
      .sort((a, b) => a - b);
    const candidates = newsTypes.filter((t) => siteIds.includes(t.siteId)).map((t) => t.id);
    const newsTypeIds = draw
      .shuffle(candidates)
      .slice(0, draw.int(0, 2))
      .sort((a, b) => a - b);
    return {
      id: i + 1,
      title,
      summary: `${horse} and the ${race}: the latest from ${course}.`,
      content,
      accessScope,
      visible: !draw.chance(0.1),
      breakout: draw.chance(0.05),
      authorId: draw.chance(0.85) ? draw.int(1, AUTHORS) : null,
      contributorId: draw.chance(0.25) ? draw.int(1, CONTRIBUTORS) : null,
      storyImageId: draw.chance(0.4) ? draw.int(1, 500) : null,
      parentId: null,
      sortOrder: 0,
      publishedAt,
      siteIds,
      newsTypeIds,
    };
  });

  // Series: a story now and then gets the next few later stories as its ordered children.
  for (let i = 0; i < stories.length; i++) {
    const parent = stories[i]!;
    if (parent.parentId !== null || !family.chance(0.05)) continue;
    const size = family.int(2, 5);
    let order = 0;
    for (let j = i + 1; j < stories.length && order < size; j++) {
      const child = stories[j]!;
      if (child.parentId !== null || !family.chance(0.5)) continue;
      child.parentId = parent.id;
      child.sortOrder = ++order;
    }
  }
  return { sites, newsTypes, authors, contributors, stories };
}

const text = (value: string) => `'${value.replace(/'/g, "''")}'`;
const nullable = (value: number | null) => (value === null ? 'null' : String(value));

/** D1 refuses statements over 100 KB: rows are grouped into multi-row inserts below that, 500 at most. */
const MAX_STATEMENT_CHARS = 90_000;
const MAX_STATEMENT_ROWS = 500;

function inserts(table: string, columns: string, rows: string[]): string[] {
  const head = `insert or ignore into ${table} (${columns}) values\n`;
  const out: string[] = [];
  let group: string[] = [];
  let size = head.length;
  for (const row of rows) {
    if (group.length && (size + row.length + 2 > MAX_STATEMENT_CHARS || group.length >= MAX_STATEMENT_ROWS)) {
      out.push(head + group.join(',\n'));
      group = [];
      size = head.length;
    }
    group.push(row);
    size += row.length + 2;
  }
  if (group.length) out.push(head + group.join(',\n'));
  return out;
}

/**
 * The data as SQL statements with explicit ids and `insert or ignore`: running them again adds
 * nothing, and a seed row deleted meanwhile comes back. Parents precede children (ids rise).
 */
export function cmsSeedSql(data: CmsSeedData): string[] {
  const s = data.stories;
  return [
    ...inserts(
      'sites',
      'id, name, url',
      data.sites.map((r) => `(${r.id}, ${text(r.name)}, ${text(r.url)})`),
    ),
    ...inserts(
      'news_types',
      'id, site_id, name',
      data.newsTypes.map((r) => `(${r.id}, ${r.siteId}, ${text(r.name)})`),
    ),
    ...inserts(
      'authors',
      'id, name, email',
      data.authors.map((r) => `(${r.id}, ${text(r.name)}, ${text(r.email)})`),
    ),
    ...inserts(
      'contributors',
      'id, name',
      data.contributors.map((r) => `(${r.id}, ${text(r.name)})`),
    ),
    ...inserts(
      'stories',
      'id, title, summary, content, access_scope, visible, breakout, author_id, contributor_id, story_image_id, parent_id, sort_order, published_at, created_at, updated_at',
      s.map(
        (r) =>
          `(${r.id}, ${text(r.title)}, ${text(r.summary)}, ${text(r.content)}, '${r.accessScope}', ${r.visible ? 1 : 0}, ${r.breakout ? 1 : 0}, ` +
          `${nullable(r.authorId)}, ${nullable(r.contributorId)}, ${nullable(r.storyImageId)}, ${nullable(r.parentId)}, ${r.sortOrder}, ${r.publishedAt}, ${r.publishedAt}, ${r.publishedAt})`,
      ),
    ),
    ...inserts(
      'story_sites',
      'story_id, site_id',
      s.flatMap((r) => r.siteIds.map((site) => `(${r.id}, ${site})`)),
    ),
    ...inserts(
      'story_news_types',
      'story_id, news_type_id',
      s.flatMap((r) => r.newsTypeIds.map((type) => `(${r.id}, ${type})`)),
    ),
    // The story search index (an FTS5 table over the stories), rebuilt from the rows now present.
    "insert into stories_search (stories_search) values ('rebuild')",
  ];
}

/** Runs statements against the CMS D1 database in local state under `persistTo`. */
export function executeCmsSql(statements: string[], persistTo: string): void {
  executeD1(CONFIG, 'DB', statements, { persistTo });
}

/**
 * The development content (idempotent): sites, authors, contributors, news types and a few
 * hundred stories in local D1 under `persistTo`, after the migrations. `npm run dev` calls it.
 */
export function seedCmsDevData(persistTo: string, options: CmsSeedOptions = {}): CmsSeedData {
  const data = generateCmsSeed(options);
  executeCmsSql(cmsSeedSql(data), persistTo);
  return data;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\/scripts\//, '/scripts/'))) {
  const { values } = parseArgs({ options: { 'persist-to': { type: 'string' }, stories: { type: 'string' } } });
  const data = seedCmsDevData(values['persist-to'] ?? devStateDir('cms'), { stories: values.stories ? Number(values.stories) : undefined });
  console.log(`✓ CMS development content: ${data.sites.length} sites, ${data.stories.length} stories`);
}
