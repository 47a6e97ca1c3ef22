import { parseTask } from './fence.ts';

/**
 * The deterministic offline model: it reads the task block of the system message and the mail
 * fenced in the user message (see `fence.ts`) and answers by fixed rules — no language model.
 * It follows what the person's prompts say as far as rules can: the categories and their rules,
 * the keys asked for, the bullet count (`at most N bullets`), a reply's greeting (`greet with
 * "…"`) and sign-off (`sign off with "…"`, the category's reply prompt before the general one),
 * and a conversation's summary so far. It reads the fenced text as data only. Same input, same
 * answer; no network. Used by MAIL_MODEL=offline (development, the bench) and by the Graph
 * stand-in's OpenAI-compatible endpoint (the tests).
 */

export type TaskKind = 'summarise' | 'classify' | 'extract' | 'reply' | 'thread';

const STOP = new Set(
  'about above after again against all also and any are because been before being below between both but can could did does doing down during each few for from further had has have having her here hers him his how into its itself just more most mail mails email emails message messages other our ours out over own same she should some such than that the their theirs them then there these they this those through too under until very was were what when where which while who whom why will with would you your yours anything something everything from sent send sends'.split(
    ' ',
  ),
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

/** A directive of the person's prompt: `<verb> "<text>"` (straight or curly quotes). */
function quoted(prompt: string, verb: RegExp): string | undefined {
  const m = new RegExp(`${verb.source}\\s*(?:"([^"\\n]{1,200})"|“([^”\\n]{1,200})”|'([^'\\n]{1,200})')`, 'i').exec(prompt);
  return m ? (m[1] ?? m[2] ?? m[3])!.trim() : undefined;
}

/** `at most N bullets` (or `N bullets`) in the prompt; 4 otherwise. */
function bulletCount(prompt: string): number {
  const m = /(?:at most|up to|no more than)?\s*(\d{1,2})\s+(?:bullet|key point)/i.exec(prompt);
  return m ? Math.min(Number(m[1]), 20) : 4;
}

function summarise(text: string, prompt: string, previous = ''): { summary: string; bullets: string[] } {
  const earlier = previous && previous !== '(none)' ? sentences(previous) : [];
  const all = sentences(text);
  if (!all.length && !earlier.length) return { summary: 'Empty message.', bullets: [] };
  // a rolling summary keeps how the conversation began, then what the new messages add
  const summary = clip([...earlier.slice(0, 1), ...all.slice(0, earlier.length ? 1 : 2)].join(' '), 400);
  const bullets = all.slice(0, bulletCount(prompt)).map((s) => clip(s, 160));
  return { summary, bullets };
}

/** The category whose rule shares the most words with the text (ties: the first listed), and those words as the reason. */
function classify(text: string, categories: string): { category: string; reason: string } {
  const have = new Set(words(text));
  let best = { category: 'unknown', shared: [] as string[] };
  for (const line of categories.split('\n')) {
    const m = /^- ([^:]+):\s*(.*)$/.exec(line.trim());
    if (!m) continue;
    const ruleWords = new Set([...words(m[2]!), ...words(m[1]!)]);
    const shared = [...ruleWords].filter((w) => have.has(w));
    if (shared.length > best.shared.length) best = { category: m[1]!.trim(), shared };
  }
  const reason = best.shared.length
    ? `keyword match: the message shares ${best.shared.map((w) => `“${w}”`).join(', ')} with the rule of ${best.category}`
    : 'keyword match: no rule shares a word with the message';
  return { category: best.category, reason };
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

function reply(text: string, prompt: string, guidance: string): string {
  const name = /^(?:from|sender):\s*([^<\n]+?)\s*(?:<|$)/im.exec(text)?.[1]?.split(/\s+/)[0];
  const greetWith = quoted(guidance, /greet(?: the sender)? with/) ?? quoted(prompt, /greet(?: the sender)? with/);
  const signOff = quoted(guidance, /sign(?:\s|-)?off with/) ?? quoted(prompt, /sign(?:\s|-)?off with/) ?? 'Kind regards';
  const subject = /^subject:\s*(.+)$/im.exec(text)?.[1]?.trim();
  const body = text.replace(/^(from|sender|subject|to):.*$/gim, '');
  const first = sentences(body)[0];
  const lines = [
    greetWith ?? `Hello${name ? ` ${name}` : ''},`,
    '',
    `Thank you for your message${subject ? ` about "${clip(subject, 80)}"` : ''}.${first ? ` You wrote: "${clip(first, 160)}"` : ''}`,
    'I will look into it and come back to you shortly.',
    '',
    signOff,
  ];
  return lines.join('\n');
}

/** The offline answer to a request (the system message with its task block, the user message with the fenced data). */
export function offlineAnswer(system: string, user: string): string {
  const { kind, prompt, instructions, data } = parseTask(system, user);
  // without a fence of this request (a request not made by task.ts) the whole user message is the text
  const text = data ? (data.text ?? '') : user;
  switch (kind) {
    case 'summarise':
      return JSON.stringify(summarise(text, prompt));
    case 'thread':
      return JSON.stringify(summarise(text, prompt, data?.previous));
    case 'classify':
      return JSON.stringify(classify(text, instructions.CATEGORIES ?? ''));
    case 'extract':
      return JSON.stringify(extract(text, instructions.KEYS ?? ''));
    case 'reply':
      return reply(text, prompt, instructions.GUIDANCE ?? '');
    default:
      return clip(sentences(text).slice(0, 2).join(' '), 400);
  }
}
