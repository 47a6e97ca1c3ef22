// The development secrets `npm run dev` gives each Worker: its `.dev.vars`, which the dev runner
// creates from `.dev.vars.example` when missing (scripts/dev.ts). The host reads the same files
// (`.dev.vars`, else `.dev.vars.example`) and writes none.
import { dirname, join } from 'node:path';

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

/** The development secrets of the Worker whose wrangler.toml is `configPath` (none when it has no file). */
export function readDevVars(configPath: string): { vars: Record<string, string>; file?: string } {
  for (const name of ['.dev.vars', '.dev.vars.example']) {
    const file = join(dirname(configPath), name);
    try {
      return { vars: parseDevVars(Deno.readTextFileSync(file)), file };
    } catch (error) {
      if (!(error instanceof Deno.errors.NotFound)) throw error;
    }
  }
  return { vars: {} };
}
