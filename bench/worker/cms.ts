// The CMS Worker as deployed, as the entry module: workerd accepts only handlers as named exports
// of the main module, and workers/cms/src/index.ts also exports a constant.
export { default } from '../../workers/cms/src/index.ts';
