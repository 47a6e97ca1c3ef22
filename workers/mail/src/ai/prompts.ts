import { and, eq } from 'drizzle-orm';
import { aiPrompts } from '#d1/mail/schema.ts';
import type { MailDb } from '../context.ts';

/**
 * The general prompts and their defaults. Prompts are data: a user's own version (D1
 * `ai_prompts`) replaces the default; deleting it goes back to the default. A category's
 * reply-drafting prompt is named `category:<name>`.
 */
export const DEFAULT_PROMPTS = {
  summarise:
    'You summarise e-mails for a busy racing office. Answer with JSON only: {"summary": "<one or two sentences>", "bullets": ["<key point>", …]} (at most 5 bullets). Keep names, dates, amounts and requests.',
  classify:
    'You sort e-mails into the categories listed, reading each category\'s rule. Answer with JSON only: {"category": "<one of the category names, exactly as listed, or unknown>", "reason": "<one short sentence: why>"}.',
  extract:
    'You extract key facts from an e-mail. Answer with JSON only: {"values": {"<key>": "<value as written>", …}}. Use the keys asked for when given; otherwise the facts the e-mail states (names, dates, amounts, references). Values are strings.',
  reply:
    'You write reply drafts for a racing office. Write the body of a short, friendly, professional reply in plain text: greet the sender, answer or acknowledge each request, no invented facts, no subject line, sign off with "Kind regards".',
  thread:
    'You keep a rolling summary of an e-mail conversation. Answer with JSON only: {"summary": "<the conversation so far in two or three sentences>", "bullets": ["<open point or decision>", …]}.',
} as const;

export type PromptName = keyof typeof DEFAULT_PROMPTS;
export const PROMPT_NAMES = Object.keys(DEFAULT_PROMPTS) as PromptName[];
export const isPromptName = (name: string): name is PromptName => Object.hasOwn(DEFAULT_PROMPTS, name);

export const categoryPromptName = (category: string): `category:${string}` => `category:${category}`;

export function defaultCategoryPrompt(category: string): string {
  return `Replies to e-mails of the category "${category}": answer the sender's questions briefly, confirm what was asked for, and say when they can expect more. Plain text, friendly, no invented facts; sign off with "Kind regards".`;
}

/** The user's prompt of that name, or the default (undefined for an unknown general name). */
export async function promptFor(db: MailDb, userId: number, name: string): Promise<{ body: string; custom: boolean } | undefined> {
  const row = await db
    .select({ body: aiPrompts.body })
    .from(aiPrompts)
    .where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, name)))
    .get();
  if (row) return { body: row.body, custom: true };
  if (isPromptName(name)) return { body: DEFAULT_PROMPTS[name], custom: false };
  if (name.startsWith('category:')) return { body: defaultCategoryPrompt(name.slice('category:'.length)), custom: false };
  return undefined;
}

export async function savePrompt(db: MailDb, userId: number, name: string, body: string): Promise<void> {
  const now = Date.now();
  await db
    .insert(aiPrompts)
    .values({ userId, name, body, updatedAt: now })
    .onConflictDoUpdate({ target: [aiPrompts.userId, aiPrompts.name], set: { body, updatedAt: now } });
}

/** Forgets the user's version: the default applies again. Answers whether there was one. */
export async function resetPrompt(db: MailDb, userId: number, name: string): Promise<boolean> {
  const deleted = await db
    .delete(aiPrompts)
    .where(and(eq(aiPrompts.userId, userId), eq(aiPrompts.name, name)))
    .returning({ name: aiPrompts.name });
  return deleted.length > 0;
}
