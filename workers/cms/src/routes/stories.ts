import { OpenAPIHono, z } from '@hono/zod-openapi';
import { HttpError } from '#shared/http-error.ts';
import { paged } from '#shared/paging.ts';
import type { CmsEnv } from '../context.ts';
import { editor, reader } from '../guards.ts';
import { linkSearch, listStories, storyChildren, storyDetail, storyParent } from '../stories.ts';
import {
  LinkSearchQuery,
  RestrictedStoryError,
  StoryBody,
  StoryDetail,
  StoryListQuery,
  StoryPage,
  StorySummary,
} from '../story-schemas.ts';
import { createStory, deleteStory, missingRestrictedTags, updateStory } from '../story-writes.ts';
import { ErrorSchema, errorResponses, IdParam, json, jsonBody, sessionRoutes } from './openapi.ts';

/** Stories: list, detail, parent, children, link-search, create, update, delete. */
export const stories = new OpenAPIHono<CmsEnv>();

const route = sessionRoutes('Stories');
const notFound = (id: number) => new HttpError(404, 'not_found', `No story ${id}`);
const badInput = json(
  z.union([ErrorSchema, RestrictedStoryError]),
  'Invalid input (`issues` names each field), or a Restricted story without its tags (`{message, missingTags}`)',
);

// Registered before `/{id}` so that `link-search` is never read as an id.
stories.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/link-search',
    summary: 'Stories that can be linked, on any of the given sites',
    description: `A numeric \`query\` matches the story id exactly; any other text matches the title by substring (LIKE, wildcards taken literally). Latest first, at most 20.`,
    request: { query: LinkSearchQuery },
    responses: { 200: json(z.array(StorySummary), 'Matching stories'), ...errorResponses(400, 401) },
  }),
  async (c) => {
    const { siteIds, query } = c.req.valid('query');
    return c.json(await linkSearch(c.env.DB, siteIds, query), 200);
  },
);

stories.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/',
    summary: 'Paged, filtered list of stories',
    request: { query: StoryListQuery },
    responses: { 200: json(StoryPage, 'One page of stories and the totals'), ...errorResponses(400, 401) },
  }),
  async (c) => {
    const filters = c.req.valid('query');
    const { items, totalCount } = await listStories(c.env.DB, filters);
    return c.json(paged(items, totalCount, filters), 200);
  },
);

stories.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/{id}',
    summary: 'One story in full',
    request: { params: IdParam },
    responses: { 200: json(StoryDetail, 'The story'), ...errorResponses(400, 401, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const story = await storyDetail(c.env.DB, id);
    if (!story) throw notFound(id);
    return c.json(story, 200);
  },
);

stories.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/{id}/parent',
    summary: 'The parent story (for the linked-story widget)',
    request: { params: IdParam },
    responses: { 200: json(StorySummary.nullable(), 'The parent, or null when the story has none'), ...errorResponses(400, 401, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const parent = await storyParent(c.env.DB, id);
    if (parent === undefined) throw notFound(id);
    return c.json(parent, 200);
  },
);

stories.openapi(
  route({
    method: 'get',
    middleware: [reader] as const,
    path: '/{id}/children',
    summary: 'Child stories by sort order (then id)',
    request: { params: IdParam },
    responses: { 200: json(z.array(StorySummary), 'The children; [] when none'), ...errorResponses(400, 401, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const children = await storyChildren(c.env.DB, id);
    if (!children) throw notFound(id);
    return c.json(children, 200);
  },
);

stories.openapi(
  route({
    method: 'post',
    middleware: [editor] as const,
    path: '/',
    summary: 'Creates a story and its site and news-type mappings',
    request: { body: jsonBody(StoryBody) },
    responses: { 201: json(StoryDetail, 'The stored story'), 400: badInput, ...errorResponses(401, 403, 409, 413, 415) },
  }),
  async (c) => {
    const input = c.req.valid('json');
    const missingTags = missingRestrictedTags(input, c.var.config.RESTRICTED_CONTENT_TAGS);
    if (missingTags.length) return c.json(restrictedError(missingTags), 400);
    return c.json(await createStory(c.env.DB, input), 201);
  },
);

stories.openapi(
  route({
    method: 'put',
    middleware: [editor] as const,
    path: '/{id}',
    summary: 'Replaces a story and resyncs its mappings',
    description: 'The body is the whole story, as for create; an omitted `publishedAt` keeps the stored one.',
    request: { params: IdParam, body: jsonBody(StoryBody) },
    responses: { 200: json(StoryDetail, 'The stored story'), 400: badInput, ...errorResponses(401, 403, 404, 409, 413, 415) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    const input = c.req.valid('json');
    const missingTags = missingRestrictedTags(input, c.var.config.RESTRICTED_CONTENT_TAGS);
    if (missingTags.length) return c.json(restrictedError(missingTags), 400);
    const story = await updateStory(c.env.DB, id, input);
    if (!story) throw notFound(id);
    return c.json(story, 200);
  },
);

stories.openapi(
  route({
    method: 'delete',
    middleware: [editor] as const,
    path: '/{id}',
    summary: 'Deletes a story and its mappings in one transaction; its children lose their parent',
    request: { params: IdParam },
    responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404) },
  }),
  async (c) => {
    const { id } = c.req.valid('param');
    if (!(await deleteStory(c.env.DB, id))) throw notFound(id);
    return c.body(null, 204);
  },
);

function restrictedError(missingTags: string[]) {
  return { message: `A Restricted story's content must hold the access-tier tags: missing ${missingTags.join(', ')}`, missingTags };
}
