// `import text from 'redoc/bundles/redoc.standalone.js'` in the Workers' code: a Text module (wrangler.toml [[rules]]).
const text: string = await Deno.readTextFile(new URL('../../../node_modules/redoc/bundles/redoc.standalone.js', import.meta.url));
export default text;
