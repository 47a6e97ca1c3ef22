/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/stats/worker-configuration.d.ts" />
export * from '../../workers/stats/src/index.ts';
