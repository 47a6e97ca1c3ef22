import { createAuthApp } from './app';

export { AccountGuard } from '../../../durable-objects/account-guard';
export { PendingLogin } from '../../../durable-objects/pending-login';

export default createAuthApp();
