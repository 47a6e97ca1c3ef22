import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './workers.ts';

// The development secrets `npm run dev` gives each Worker: its `.dev.vars`, which the dev runner
// creates from `.dev.vars.example` when missing (scripts/dev.ts). The seeds and the Deno host read
// the same files (`.dev.vars`, else `.dev.vars.example`) and write none.

/** dotenv lines as wrangler reads `.dev.vars`: `NAME=value`, `#` comments, optional quotes, `export `. */
export function parseDevVars(text: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const match = line.match(/^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'" || quote === '`') && value.lastIndexOf(quote) > 0) {
      value = value.slice(1, value.lastIndexOf(quote));
      if (quote === '"') value = value.replace(/\\n/g, '\n');
    } else {
      value = value.replace(/\s+#.*$/, '').trim();
    }
    vars[match[1]!] = value;
  }
  return vars;
}

/** The development secrets in `dir` (a Worker's folder); none when it has neither file. */
export function readDevVars(dir: string): { vars: Record<string, string>; file?: string } {
  for (const name of ['.dev.vars', '.dev.vars.example']) {
    const file = join(dir, name);
    if (existsSync(file)) return { vars: parseDevVars(readFileSync(file, 'utf8')), file };
  }
  return { vars: {} };
}

/** A value from the environment, else from workers/<service>/.dev.vars (then .dev.vars.example). */
export function devVar(service: string, name: string): string {
  const value = process.env[name] || readDevVars(join(ROOT, 'workers', service)).vars[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
}
