// `import text from 'uplot/dist/uPlot.esm.js'` in the Workers' code: a Text module (wrangler.toml [[rules]]).
const text: string = await Deno.readTextFile(new URL('../../../node_modules/uplot/dist/uPlot.esm.js', import.meta.url));
export default text;
