// `node dev-watchdog.mjs <command> [args…]`: runs one process of the dev stack (a `wrangler dev`)
// under the dev runner (watched-process.ts), in the process group this watchdog leads, and ends
// that whole group — wrangler, its inner node process, workerd — when the runner is gone, however
// it went: a SIGKILLed or crashed runner cannot clean up, but its end of this process's stdin then
// closes. SIGTERM, SIGINT or SIGHUP stop the group the same way. Plain JavaScript: no TypeScript
// loader to start.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';

/** How long the command gets to stop on SIGINT before the group is killed. */
const GRACE_MS = 5_000;

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error('usage: dev-watchdog.mjs <command> [args…]');
  process.exit(2);
}

let stopping = false;
const runner = process.ppid;
const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });

/** Signals every process of this group (this one included). */
function signalGroup(signal) {
  try {
    process.kill(-process.pid, signal);
  } catch {
    // the group is gone already
  }
}

function stop() {
  if (stopping) return;
  stopping = true;
  if (child.exitCode !== null || child.signalCode !== null) return signalGroup('SIGKILL');
  // wrangler's own shutdown first (it stops workerd); this process ignores the SIGINT (handler below).
  signalGroup('SIGINT');
  setTimeout(() => signalGroup('SIGKILL'), GRACE_MS);
}

child.on('error', (error) => {
  console.error(`dev-watchdog: cannot start ${command}: ${error.message}`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  // Stopping, or the runner is gone: sweep whatever the command left in the group, this process last.
  if (stopping || process.ppid !== runner) signalGroup('SIGKILL');
  // It ended by itself: the runner reports it and kills what is left in the group.
  else process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP']) process.on(signal, stop);
// The runner never writes here: end of file means it is gone.
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.on('error', stop);
process.stdin.resume();
