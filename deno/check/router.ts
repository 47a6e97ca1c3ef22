/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/router/worker-configuration.d.ts" />
export * from '../../workers/router/src/index.ts';
