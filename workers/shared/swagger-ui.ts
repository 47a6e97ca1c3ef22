/**
 * The Swagger UI page over a service's OpenAPI document. The UI's files come from swagger-ui-dist
 * (static assets) under `assets` ('' for relative addresses, '/' for the root); its start-up script is
 * a file of the service's too (`script`), so the page's policy allows scripts from this origin only.
 */
export function swaggerUiPage(title: string, assets: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="${assets}swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${assets}swagger-ui-bundle.js"></script>
<script src="${script}"></script>
</body>
</html>`;
}
