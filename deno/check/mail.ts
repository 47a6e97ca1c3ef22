/// <reference types="../../node_modules/@cloudflare/workers-types/index.d.ts" />
/// <reference path="../../workers/mail/worker-configuration.d.ts" />
export * from '../../workers/mail/src/index.ts';
