// The Worker of `npm run bench -- runtime-memory`: 20 KB of HTML for every request and nothing else
// (no bindings, no logging, no state), so that what its workerd's memory does under load is the
// local runtime's own.
const PAGE = `<!doctype html><html><body>${'x'.repeat(20_000)}</body></html>`;

export default {
  fetch() {
    return new Response(PAGE, { headers: { 'content-type': 'text/html' } });
  },
};
