/**
 * Gates of the command line's own routes (`workers/mail/src/routes/tools.ts`), merged into the
 * table of `guards.test.ts`.
 */
export type Gate = 'none' | 'page-login' | 'page-login-csrf' | 'page-token' | 'api-token' | 'api-token-csrf';

export const TOOLS_GATES: Record<string, Gate> = {
  'GET /api/me': 'api-token',
  'POST /api/folders': 'api-token-csrf',
  'POST /api/drafts': 'api-token-csrf',
  'GET /api/email/:message_id/attachments': 'api-token',
  'GET /api/email/:message_id/attachments/:attachment_id': 'api-token',
  'GET /api/email/:message_id/attachments/:attachment_id/text': 'api-token',
  'POST /api/subscriptions': 'api-token-csrf',
};
