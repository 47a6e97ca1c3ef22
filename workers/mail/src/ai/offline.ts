/**
 * The deterministic offline model: it reads the task block that every request ends with (see
 * `task.ts`) and answers as a careful model would, from the text alone. Same input, same answer;
 * no network. Used by MAIL_MODEL=offline (development, tests, the bench) and by the Graph
 * stand-in's OpenAI-compatible endpoint.
 */

export type TaskKind = 'summarise' | 'classify' | 'extract' | 'reply' | 'thread';

/** The task block: `### TASK <kind>` then `### <SECTION>` parts. */
function parseTask(user: string): { kind: TaskKind | undefined; sections: Record<string, string> } {
  const kind = /^### TASK (\w+)/m.exec(user)?.[1] as TaskKind | undefined;
  const sections: Record<string, string> = {};
  const parts = user.split(/^### ([A-Z_]+)\s*$/m);
  for (let i = 1; i + 1 < parts.length; i += 2) sections[parts[i]!] = parts[i + 1]!.trim();
  return { kind, sections };
}

const STOP = new Set(
  'about above after again against all also and any are because been before being below between both but can could did does doing down during each few for from further had has have having her here hers him his how into its itself just more most mail mails email emails message messages other our ours out over own same she should some such than that the their theirs them then there these they this those through too under until very was were what when where which while who whom why will with would you your yours anything something everything from sent send sends'.split(' '),
);

const words = (s: string) => (s.toLowerCase().match(/[\p{L}\p{N}]{3,}/gu) ?? []).filter((w) => !STOP.has(w));

function sentences(text: string): string[] {
  return text
    .replace(/\s+/g, ' ')
    .split(/(?<=[.!?])\s+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 2);
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

function summarise(text: string): { summary: string; bullets: string[] } {
  const all = sentences(text);
  if (!all.length) return { summary: 'Empty message.', bullets: [] };
  const summary = clip(all.slice(0, 2).join(' '), 400);
  const bullets = all.slice(0, 4).map((s) => clip(s, 160));
  return { summary, bullets };
}

/** The category whose rule shares the most words with the text (ties: the first listed). */
function classify(text: string, categories: string): { category: string } {
  const have = new Set(words(text));
  let best = { category: 'unknown', score: 0 };
  for (const line of categories.split('\n')) {
    const m = /^- ([^:]+):\s*(.*)$/.exec(line.trim());
    if (!m) continue;
    const ruleWords = new Set([...words(m[2]!), ...words(m[1]!)]);
    let score = 0;
    for (const w of ruleWords) if (have.has(w)) score++;
    if (score > best.score) best = { category: m[1]!.trim(), score };
  }
  return { category: best.category };
}

/** `Key: value` lines, and the keys asked for when the text names them. */
function extract(text: string, keys: string): { values: Record<string, string> } {
  const values: Record<string, string> = {};
  const wanted = keys
    .split(/[,\n]/)
    .map((k) => k.trim())
    .filter(Boolean);
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*([\p{L}][\p{L}\p{N} _-]{0,40}?)\s*[:=]\s*(\S.{0,300})$/u.exec(line);
    if (!m) continue;
    const key = m[1]!.trim().toLowerCase().replace(/\s+/g, '_');
    if (wanted.length && !wanted.some((w) => w.toLowerCase().replace(/\s+/g, '_') === key)) continue;
    values[key] ??= m[2]!.trim();
  }
  return { values };
}

function reply(text: string): string {
  const greeting = /^(?:from|sender):\s*([^<\n]+?)\s*(?:<|$)/im.exec(text)?.[1]?.split(/\s+/)[0];
  const subject = /^subject:\s*(.+)$/im.exec(text)?.[1]?.trim();
  const body = text.replace(/^(from|sender|subject|to):.*$/gim, '');
  const first = sentences(body)[0];
  const lines = [
    `Hello${greeting ? ` ${greeting}` : ''},`,
    '',
    `Thank you for your message${subject ? ` about "${clip(subject, 80)}"` : ''}.${first ? ` You wrote: "${clip(first, 160)}"` : ''}`,
    'I will look into it and come back to you shortly.',
    '',
    'Kind regards',
  ];
  return lines.join('\n');
}

/** The offline answer to a prompt (system text and the user message with its task block). */
export function offlineAnswer(_system: string, user: string): string {
  const { kind, sections } = parseTask(user);
  const text = sections.TEXT ?? user;
  switch (kind) {
    case 'summarise':
    case 'thread':
      return JSON.stringify(summarise(text));
    case 'classify':
      return JSON.stringify(classify(text, sections.CATEGORIES ?? ''));
    case 'extract':
      return JSON.stringify(extract(text, sections.KEYS ?? ''));
    case 'reply':
      return reply(text);
    default:
      return clip(sentences(text).slice(0, 2).join(' '), 400);
  }
}
