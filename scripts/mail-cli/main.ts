import { createInterface } from 'node:readline';
import { type CliIo, run } from './cli.ts';

/** `npm run mail -- <command>`: the command line on this process's streams. */

let stdinText: Promise<string> | undefined;
function readStdin(): Promise<string> {
  stdinText ??= (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  })();
  return stdinText;
}

/** A question on the terminal; with `hidden`, what is typed is not echoed (passwords). */
function prompt(question: string, hidden: boolean): Promise<string> {
  return new Promise((resolve, reject) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
    if (hidden) {
      // Echo nothing but the question itself.
      const write = (rl as unknown as { _writeToOutput?: (s: string) => void })._writeToOutput;
      (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = (s: string) => {
        if (s.startsWith(question) || s === '\r\n' || s === '\n') write?.call(rl, s);
      };
    }
    rl.on('SIGINT', () => {
      rl.close();
      process.stderr.write('\n');
      reject(new Error('cancelled'));
    });
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer);
    });
  });
}

const controller = new AbortController();
let interrupted = false;
process.on('SIGINT', () => {
  // The first Ctrl-C ends long work (poll, web) cleanly; a second one exits at once.
  if (interrupted) process.exit(130);
  interrupted = true;
  controller.abort();
});

const io: CliIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  fetch: globalThis.fetch,
  isTTY: Boolean(process.stdin.isTTY),
  readStdin,
  prompt,
  signal: controller.signal,
};

process.exitCode = await run(process.argv.slice(2), io);
