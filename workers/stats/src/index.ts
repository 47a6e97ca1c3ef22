import { servedUnder } from '#shared/base-path.ts';
import app from './app.ts';

export { AccountGuard } from '#durable-objects/account-guard.ts';
export { UserContext } from '#durable-objects/user-context.ts';

export default { fetch: servedUnder('/stats', app.fetch) } satisfies ExportedHandler<Env>;
