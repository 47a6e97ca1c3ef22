import { startGraphStandin } from './server.ts';

/** `tsx scripts/graph-standin/main.ts [--port 8796] [--empty]`: the stand-in on its own, until Ctrl-C. */
const args = process.argv.slice(2);
const portArg = args.indexOf('--port');
const port = portArg >= 0 ? Number(args[portArg + 1]) : 8796;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: main.ts [--port N] [--empty]');
  process.exit(2);
}
const standin = await startGraphStandin({ port, seed: args.includes('--empty') ? 'empty' : 'racing' });
console.log(`Graph stand-in      ${standin.graphBaseUrl}`);
console.log(`identity platform   ${standin.identityBaseUrl}/common/oauth2/v2.0/authorize`);
console.log(`control             ${standin.url}/_standin`);
const stop = () => void standin.close().then(() => process.exit(0));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
