import { createRoute, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { engineEnv } from '../configurations.ts';
import * as engine from '../engine/index.ts';
import { guard } from '../guards.ts';
import { identifier, intId, sessionId } from '../input.ts';
import { migrationJob } from '../runs.ts';
import { addCustomRelationship, deleteCustomRelationship, ownRelationshipSession, wizardSession } from '../wizard-sessions.ts';
import { ErrorBody, guardedResponses, json, jsonRoutes, security } from './json.ts';

/** The wizard's JSON actions, called by its pages' scripts. */
export const wizardJson = jsonRoutes();

const form = <T extends z.ZodType>(schema: T) => ({
  body: { content: { 'application/x-www-form-urlencoded': { schema } }, required: true },
});

const ColumnInfo = z.object({ ColumnName: z.string(), DataType: z.string(), IsPrimaryKey: z.boolean() }).openapi('ColumnInfo');

wizardJson.openapi(
  createRoute({
    method: 'get',
    path: '/Migration/GetDestinationTableColumns',
    summary: 'Columns of a destination table',
    security,
    middleware: [guard.read('any', { json: true })],
    request: { query: z.object({ tableName: identifier }) },
    responses: { 200: json(z.array(ColumnInfo), 'The columns'), 404: json(ErrorBody, 'No such destination table'), ...guardedResponses },
  }),
  async (c) => {
    const { tableName } = c.req.valid('query');
    const columns = await engine.tableColumns(engineEnv(c), 'destination', tableName);
    if (!columns) return c.json({ error: 'not_found', message: `The destination has no table ${tableName}.` }, 404);
    return c.json(
      columns.map(({ ColumnName, DataType, IsPrimaryKey }) => ({ ColumnName, DataType, IsPrimaryKey })),
      200,
    );
  },
);

const Relationship = z.object({
  sessionId,
  parentTable: identifier,
  parentColumn: identifier,
  childTable: identifier,
  childColumn: identifier,
});
const RelationshipAnswer = z
  .object({ success: z.boolean(), id: z.number().int().optional(), message: z.string() })
  .openapi('RelationshipAnswer');

wizardJson.openapi(
  createRoute({
    method: 'post',
    path: '/Migration/AddCustomRelationship',
    summary: 'Adds a foreign key between destination columns to the session',
    security,
    middleware: [guard.write('operator', { json: true })],
    request: form(Relationship),
    responses: { 200: json(RelationshipAnswer, 'Added'), 404: json(ErrorBody, 'No such session'), ...guardedResponses },
  }),
  async (c) => {
    const input = c.req.valid('form');
    const session = await wizardSession(c, input.sessionId);
    const env = engineEnv(c);
    const [child, parent] = await Promise.all([
      engine.tableColumns(env, 'destination', input.childTable),
      engine.tableColumns(env, 'destination', input.parentTable),
    ]);
    if (!child?.some((col) => col.ColumnName === input.childColumn) || !parent?.some((col) => col.ColumnName === input.parentColumn)) {
      return c.json(
        {
          success: false,
          message: `${input.childTable}.${input.childColumn} or ${input.parentTable}.${input.parentColumn} is not a destination column.`,
        },
        400,
      );
    }
    const id = await addCustomRelationship(c.var.db, session.id, input);
    return c.json(
      { success: true, id, message: `Added ${input.childTable}.${input.childColumn} → ${input.parentTable}.${input.parentColumn}.` },
      200,
    );
  },
);

wizardJson.openapi(
  createRoute({
    method: 'post',
    path: '/Migration/DeleteRelationship',
    summary: "Deletes a custom relationship of the session (another session's is not found)",
    security,
    middleware: [guard.write('operator', { json: true })],
    // `relationshipId` alone (the spec's form) reaches only a relationship of a session the caller started.
    request: form(z.object({ sessionId: sessionId.optional(), relationshipId: intId })),
    responses: {
      200: json(z.object({ success: z.boolean(), message: z.string() }), 'Deleted'),
      404: json(ErrorBody, 'No such session, or no such relationship in it'),
      ...guardedResponses,
    },
  }),
  async (c) => {
    const input = c.req.valid('form');
    const relationshipId = input.relationshipId;
    const owned = input.sessionId ?? (await ownRelationshipSession(c.var.db, relationshipId, c.var.user.email));
    if (!owned)
      throw new HttpError(404, 'not_found', `No relationship ${relationshipId} in a migration session of yours; name its sessionId.`);
    const session = await wizardSession(c, owned);
    if (!(await deleteCustomRelationship(c.var.db, session.id, relationshipId))) {
      throw new HttpError(404, 'not_found', `The migration session ${session.id} has no relationship ${relationshipId}.`);
    }
    return c.json({ success: true, message: `Relationship ${relationshipId} deleted.` }, 200);
  },
);

wizardJson.openapi(
  createRoute({
    method: 'post',
    path: '/Migration/ClearHistoryAjax',
    summary: "Deletes the configuration's id mappings of the given destination tables (all of the session's without a body)",
    security,
    middleware: [guard.write('operator', { json: true })],
    request: {
      query: z.object({ sessionId }),
      body: { content: { 'application/json': { schema: z.array(identifier).max(200) } }, required: false },
    },
    responses: {
      200: json(z.object({ deleted: z.number().int() }), 'Deleted'),
      404: json(ErrorBody, 'No such session'),
      ...guardedResponses,
    },
  }),
  async (c) => {
    const session = await wizardSession(c, c.req.valid('query').sessionId);
    const tables = (c.req.header('content-type')?.startsWith('application/json') ? c.req.valid('json') : undefined) ?? [];
    const chosen = tables.length ? tables : session.plans.map((p) => p.destTable).filter(Boolean);
    const { deleted } = await engine.clearHistory(engineEnv(c), session.configId, chosen);
    return c.json({ deleted }, 200);
  },
);

wizardJson.openapi(
  createRoute({
    method: 'post',
    path: '/Migration/CancelMigration',
    summary: "Asks the session's run to stop (within one chunk)",
    security,
    middleware: [guard.write('operator', { json: true })],
    request: form(z.object({ sessionId })),
    responses: {
      200: json(z.object({ message: z.string() }), 'Cancellation requested (or nothing to cancel)'),
      404: json(ErrorBody, 'No such session'),
      ...guardedResponses,
    },
  }),
  async (c) => {
    const session = await wizardSession(c, c.req.valid('form').sessionId);
    if (!session.runId) return c.json({ message: 'This session has no run to cancel.' }, 200);
    return c.json(await migrationJob(c, session.runId).cancel(), 200);
  },
);
