/**
 * Gates of the assistant's routes (AI drafts, categories, prompts, summaries, traces, admin
 * users), merged into the table of `guards.test.ts`. "ai" = an account allowed to use the
 * assistant; "admin" = one of its admins (MAIL_ASSISTANT_ADMINS).
 */
export type AiGate =
  | 'page-ai'
  | 'page-ai-csrf'
  | 'page-ai-admin-csrf'
  | 'page-ai-token'
  | 'page-ai-token-csrf'
  | 'api-ai'
  | 'api-ai-csrf'
  | 'api-ai-token'
  | 'api-ai-token-csrf'
  | 'api-ai-admin'
  | 'api-ai-admin-csrf';

export const AI_GATES: Record<string, AiGate> = {
  'GET /dashboard': 'page-ai',
  'GET /admin': 'page-ai',
  'GET /trace/:trace_id': 'page-ai',
  'GET /admin/docdb-latest': 'page-ai',
  'GET /settings': 'page-ai',
  'POST /settings/categories': 'page-ai-csrf',
  'POST /settings/categories/update': 'page-ai-csrf',
  'POST /settings/categories/delete': 'page-ai-csrf',
  'POST /settings/prompts': 'page-ai-csrf',
  'POST /settings/prompts/reset': 'page-ai-csrf',
  'POST /settings/recategorise': 'page-ai-csrf',
  'POST /settings/follow-up': 'page-ai-csrf',
  'GET /api/follow-up': 'api-ai',
  'PUT /api/follow-up': 'api-ai-csrf',
  'GET /senders': 'page-ai-token',
  'POST /senders/unsubscribe': 'page-ai-token-csrf',
  'GET /api/senders': 'api-ai-token',
  'POST /api/senders/unsubscribe': 'api-ai-token-csrf',
  'GET /api/senders/jobs/:job_id': 'api-ai-token',
  'POST /settings/users': 'page-ai-admin-csrf',
  'POST /settings/users/remove': 'page-ai-admin-csrf',
  'GET /settings/rules': 'page-ai',
  'POST /settings/rules': 'page-ai-csrf',
  'POST /settings/rules/test': 'page-ai-csrf',
  'POST /settings/rules/apply': 'page-ai-csrf',
  'POST /api/llm/summarise': 'api-ai-csrf',
  'POST /api/llm/classify': 'api-ai-csrf',
  'POST /api/llm/kv-extract': 'api-ai-csrf',
  'POST /api/llm/reply-draft': 'api-ai-csrf',
  'GET /api/categories': 'api-ai',
  'GET /api/admin/categories': 'api-ai',
  'POST /api/admin/categories': 'api-ai-csrf',
  'PUT /api/admin/categories/:name': 'api-ai-csrf',
  'DELETE /api/admin/categories/:name': 'api-ai-csrf',
  'GET /api/admin/categories/:name/prompt': 'api-ai',
  'POST /api/admin/categories/:name/prompt': 'api-ai-csrf',
  'GET /api/admin/jobs/:job_id': 'api-ai',
  'GET /api/admin/llm-prompts': 'api-ai',
  'GET /api/admin/llm-prompts/:name': 'api-ai',
  'PUT /api/admin/llm-prompts/:name': 'api-ai-csrf',
  'DELETE /api/admin/llm-prompts/:name': 'api-ai-csrf',
  'GET /api/admin/llm-prompts/category/:category': 'api-ai',
  'PUT /api/admin/llm-prompts/category/:category': 'api-ai-csrf',
  'DELETE /api/admin/llm-prompts/category/:category': 'api-ai-csrf',
  'GET /api/docdb/email_summaries': 'api-ai',
  'GET /api/docdb/email_summaries/:message_id': 'api-ai',
  'PUT /api/docdb/email_summaries/:message_id': 'api-ai-csrf',
  'DELETE /api/docdb/email_summaries/:message_id': 'api-ai-csrf',
  'POST /api/docdb/email_summaries/:message_id/pin': 'api-ai-csrf',
  'PUT /api/email/:message_id/category': 'api-ai-csrf',
  'GET /api/admin/docdb/emails': 'api-ai',
  'POST /api/save-summary-direct': 'api-ai-csrf',
  'POST /api/email/:message_id/classify': 'api-ai-token-csrf',
  'POST /api/draft/generate': 'api-ai-token-csrf',
  'POST /api/draft/update': 'api-ai-token-csrf',
  'POST /api/draft/send': 'api-ai-token-csrf',
  'GET /api/draft/find': 'api-ai-token',
  'POST /api/threads/:thread_id/update-summary': 'api-ai-token-csrf',
  'GET /api/thread-summary/:message_id': 'api-ai-token',
  'POST /api/draft/from-summary': 'api-ai-csrf',
  'GET /api/dashboard': 'api-ai',
  'GET /api/traces/:trace_id': 'api-ai',
  'GET /api/admin/users': 'api-ai-admin',
  'POST /api/admin/users': 'api-ai-admin-csrf',
  'GET /api/inbox-zero': 'api-ai',
  'POST /api/bulk-archive': 'api-ai-token-csrf',
  'GET /api/rules': 'api-ai',
  'PUT /api/rules/:name': 'api-ai-csrf',
  'POST /api/rules/test': 'api-ai-token-csrf',
  'POST /api/rules/apply': 'api-ai-token-csrf',
};
