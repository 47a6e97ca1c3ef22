import { createFormApp } from './app.tsx';

export { AccountGuard } from '#durable-objects/account-guard.ts';
export { LiveSession } from '#durable-objects/live-session.ts';

export default createFormApp();
