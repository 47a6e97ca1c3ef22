import {
  DEFAULT_PROMPTS,
  PROMPT_NAMES,
  type PromptName,
  categoryPromptName,
  defaultCategoryPrompt,
  promptFor,
  resetPrompt,
  savePrompt,
} from '../ai/prompts.ts';
import type { MailDb } from '../context.ts';

/**
 * The prompts as the settings page and the JSON routes show them: the user's version (or the
 * default) with the default beside it. Storage itself is `ai/prompts.ts` (shared with the tasks).
 */
export interface PromptView {
  name: string;
  body: string;
  custom: boolean;
  default: string;
}

async function view(db: MailDb, userId: number, name: string, fallback: string): Promise<PromptView> {
  const stored = (await promptFor(db, userId, name)) ?? { body: fallback, custom: false };
  return { name, body: stored.body, custom: stored.custom, default: fallback };
}

export const generalPrompt = (db: MailDb, userId: number, name: PromptName) => view(db, userId, name, DEFAULT_PROMPTS[name]);

export const generalPrompts = (db: MailDb, userId: number) => Promise.all(PROMPT_NAMES.map((n) => generalPrompt(db, userId, n)));

export const categoryPrompt = (db: MailDb, userId: number, category: string) =>
  view(db, userId, categoryPromptName(category), defaultCategoryPrompt(category));

/** Saves the user's version of a general prompt or of a category's reply prompt (`category:<name>`). */
export const savePromptBody = (db: MailDb, userId: number, name: string, body: string) => savePrompt(db, userId, name, body);

/** Back to the default; answers whether there was a version of the user's. */
export const resetPromptBody = (db: MailDb, userId: number, name: string) => resetPrompt(db, userId, name);
