// The spreadsheet import pages, one file per page (common.tsx: what they share).
export { ImportPreviewPage } from './preview.tsx';
export { ImportAutoSyncPage, ImportProgressPage } from './progress.tsx';
export { ImportIndexPage } from './upload.tsx';
