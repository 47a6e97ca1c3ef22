import type { TestProject } from 'vitest/node';
import { startFakeExternal } from './fake-external';

// The fake external statistics API and authentication service, for this project's tests.
export default async function setup(project: TestProject) {
  const fake = await startFakeExternal();
  project.provide('fakeExternalUrl', fake.url);
  return () => fake.close();
}

declare module 'vitest' {
  export interface ProvidedContext {
    fakeExternalUrl: string;
  }
}
