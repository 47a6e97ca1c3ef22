import type { RacingReadsVariables } from '#shared/pg.ts';
import type { DataCache } from './cache.ts';
import type { FormConfig } from './config.ts';
import type { Session } from './session.ts';

/** Bindings and per-request services of the form Worker (read from `c.var`). */
export type FormEnv = {
  Bindings: Env;
  Variables: RacingReadsVariables & {
    requestId: string;
    config: FormConfig;
    cache: DataCache;
    session: Session | undefined;
  };
};
