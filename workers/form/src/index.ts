import { createFormApp } from './app.ts';

export { AccountGuard } from '#durable-objects/account-guard.ts';
export { LiveSession } from '#durable-objects/live-session.ts';

export default createFormApp();
