import type { RacingReadsVariables } from '../../shared/pg';
import type { DataCache } from './cache';
import type { FormConfig } from './config';
import type { Session } from './session';

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
