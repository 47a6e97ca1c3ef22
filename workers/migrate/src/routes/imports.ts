import type { ImportArea } from '../imports/areas.ts';
import { jsonRoutes } from './json.ts';
import { autoSyncPages } from './imports/auto-sync.ts';
import { importJsonRoutes } from './imports/json.ts';
import { importPages } from './imports/pages.ts';

// Barrier trials and sectional times (spec 002 A, "Barrier trials and Sectional"): the same
// thirteen routes for each area, from one definition. See README, "Spreadsheet imports".

export const imports = jsonRoutes();

function registerArea(area: ImportArea): void {
  importPages(imports, area);
  autoSyncPages(imports, area);
  importJsonRoutes(imports, area);
}

registerArea('BarrierTrials');
registerArea('Sectional');
