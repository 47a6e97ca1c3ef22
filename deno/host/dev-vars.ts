// The development secrets `npm run dev` gives each Worker, read by the same code as the seeds
// (scripts/dev-vars.ts).
import { dirname } from 'node:path';
import { readDevVars as readDevVarsIn } from '../../scripts/dev-vars.ts';

export { parseDevVars } from '../../scripts/dev-vars.ts';

/** The development secrets of the Worker whose wrangler.toml is `configPath` (none when it has no file). */
export const readDevVars = (configPath: string) => readDevVarsIn(dirname(configPath));
