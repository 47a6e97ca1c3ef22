import { env } from 'cloudflare:workers';
import { expect } from 'vitest';
import type { RunProgress, TablePlan } from '../../workers/migrate/src/engine/types';
import { type Client, legacyConfigurationForm } from './helpers';

// Steps of the wizard that the wizard-*.test.ts files take the same way, through the app's own routes.

/**
 * Creates the legacy source configuration (the file's first, so the active one) and gives it an id
 * of the file's own: id mappings in the shared racing database are kept per configuration id, and
 * other files' runs under configuration 1 clear them.
 */
export async function ownLegacyConfiguration(client: Client, id: number): Promise<void> {
  await client.page('/Configuration/Create');
  expect((await client.post('/Configuration/Create', legacyConfigurationForm('Legacy'))).status).toBe(302);
  await env.DB.prepare('update configurations set id = ? where id = (select max(id) from configurations)').bind(id).run();
}

/** A new session through TableSelection's first post: its id. */
export async function newSession(client: Client, tables: string[]): Promise<string> {
  await client.page('/Migration/TableSelection');
  const created = await client.post('/Migration/TableSelection', { selectedTables: tables });
  expect(created.status).toBe(302);
  const id = /^\/Migration\/SchemaImport\?sessionId=([0-9a-f-]{36})$/.exec(created.headers.get('location') ?? '')?.[1];
  expect(id).toBeDefined();
  return id!;
}

/** Posts a mapping document as the SchemaImport step's file. */
export function uploadSchema(client: Client, sessionId: string, doc: unknown): Promise<Response> {
  const form = new FormData();
  form.append('sessionId', sessionId);
  form.append('schemaFile', new Blob([JSON.stringify(doc)], { type: 'application/json' }), 'mapping.json');
  return client.fetch('/Migration/SchemaImport', { method: 'POST', body: form, headers: { RequestVerificationToken: client.csrf } });
}

/** The session's plans as stored in D1. */
export async function storedPlans(sessionId: string): Promise<TablePlan[]> {
  const row = await env.DB.prepare('select mappings from migration_sessions where id = ?')
    .bind(sessionId)
    .first<{ mappings: string | null }>();
  return JSON.parse(row?.mappings ?? '[]') as TablePlan[];
}

/** Polls the progress route until the session's run has ended: its last progress. */
export async function waitForRun(client: Client, sessionId: string): Promise<RunProgress> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const res = await client.get(`/api/migration/progress/${sessionId}`);
    expect(res.status).toBe(200);
    const progress = await res.json<RunProgress>();
    if (['completed', 'failed', 'cancelled'].includes(progress.state)) return progress;
    if (Date.now() > deadline) throw new Error(`run still ${progress.state}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}
