// `import openapi from '../../openapi.json'` in workers/auth (a JSON module; Deno wants `with { type: 'json' }`).
import openapi from '../../../workers/auth/openapi.json' with { type: 'json' };
export default openapi;
