import redocBundle from 'redoc/bundles/redoc.standalone.js';
import swaggerUiCss from 'swagger-ui-dist/swagger-ui.css';
import swaggerUiBundle from 'swagger-ui-dist/swagger-ui-bundle.js';
import uplotModule from 'uplot/dist/uPlot.esm.js';
import { ASSET_VERSION } from './asset-version.ts';
import { API_TEST_JS } from './views/api-test.tsx';
import { DASHBOARD_JS } from './views/dashboard-script.ts';
import { LOGIN_JS } from './views/login.tsx';

// Browser assets from npm packages, bundled as text (wrangler.toml [[rules]]) and served with a
// long cache lifetime: their URLs carry the package version, so a new version is a new URL.

export const ASSETS: Record<string, { body: string; type: string }> = {
  [`/assets/uplot-${ASSET_VERSION.uplot}.esm.js`]: { body: uplotModule, type: 'text/javascript; charset=utf-8' },
  [`/assets/swagger-ui-${ASSET_VERSION.swaggerUi}.js`]: { body: swaggerUiBundle, type: 'text/javascript; charset=utf-8' },
  [`/assets/swagger-ui-${ASSET_VERSION.swaggerUi}.css`]: { body: swaggerUiCss, type: 'text/css; charset=utf-8' },
  [`/assets/redoc-${ASSET_VERSION.redoc}.standalone.js`]: { body: redocBundle, type: 'text/javascript; charset=utf-8' },
  '/assets/dashboard.js': { body: DASHBOARD_JS, type: 'text/javascript; charset=utf-8' },
  '/assets/login.js': { body: LOGIN_JS, type: 'text/javascript; charset=utf-8' },
  '/assets/api-test.js': { body: API_TEST_JS, type: 'text/javascript; charset=utf-8' },
};
