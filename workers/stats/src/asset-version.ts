/** Versions of the npm browser assets, part of their URLs (so each version can be cached for good). */
export const ASSET_VERSION = { uplot: '1.6.32', swaggerUi: '5.35.0', redoc: '2.5.4' } as const;
