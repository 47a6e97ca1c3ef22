import { createFormApp } from './app';

export { AccountGuard } from '../../../durable-objects/account-guard';
export { LiveSession } from '../../../durable-objects/live-session';

export default createFormApp();
