// `import text from 'swagger-ui-dist/swagger-ui-bundle.js'` in the Workers' code: a Text module (wrangler.toml [[rules]]).
const text: string = await Deno.readTextFile(new URL('../../../node_modules/swagger-ui-dist/swagger-ui-bundle.js', import.meta.url));
export default text;
