import { servedUnder } from '#shared/base-path.ts';
import app from './app.ts';

export default { fetch: servedUnder('/cms', app.fetch) } satisfies ExportedHandler<Env>;
