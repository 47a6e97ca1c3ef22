import { ASSET_VERSION } from '../asset-version.ts';

/** `base` is the path prefix the page was served under ('' at the root): script and element URLs the HTML rewrite does not reach. */
export function SwaggerUiPage(props: { base: string }) {
  const init = `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(`${props.base}/openapi.json`)}, dom_id: '#swagger-ui', deepLinking: true, persistAuthorization: true });`;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Meeting statistics API · Swagger UI</title>
        <link rel="stylesheet" href={`/assets/swagger-ui-${ASSET_VERSION.swaggerUi}.css`} />
      </head>
      <body>
        <div id="swagger-ui"></div>
        <script src={`/assets/swagger-ui-${ASSET_VERSION.swaggerUi}.js`}></script>
        <script dangerouslySetInnerHTML={{ __html: init }} />
      </body>
    </html>
  );
}

export function RedocPage(props: { base: string }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>Meeting statistics API · ReDoc</title>
        <style>{'body{margin:0}'}</style>
      </head>
      <body>
        <redoc spec-url={`${props.base}/openapi.json`}></redoc>
        <script src={`/assets/redoc-${ASSET_VERSION.redoc}.standalone.js`}></script>
      </body>
    </html>
  );
}

/** Swagger UI over the OpenAPI document under `base`. */
export const swaggerUiPage = (base: string) => <SwaggerUiPage base={base} />;

/** ReDoc over the OpenAPI document under `base`. */
export const redocPage = (base: string) => <RedocPage base={base} />;
