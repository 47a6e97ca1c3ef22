import { createFormApp } from './app';

export default createFormApp();
