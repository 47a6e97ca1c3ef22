// Rewrites test/file-durations.ts (the order of a run on a fresh clone: test/sequencer.ts) from a
// vitest JSON report: `npx vitest run --reporter=json --outputFile=report.json`, then
// `npx tsx scripts/test-durations.ts report.json`. Files the report does not cover keep their time;
// files that no longer exist leave the list.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { FILE_SECONDS } from '../test/file-durations.ts';
import { ROOT } from './workers.ts';

interface Report {
  testResults: { name: string; startTime: number; endTime: number }[];
}

const [reportPath] = process.argv.slice(2);
if (!reportPath) {
  console.error('usage: tsx scripts/test-durations.ts <vitest JSON report>');
  process.exit(2);
}
const report = JSON.parse(readFileSync(reportPath, 'utf8')) as Report;
const seconds: Record<string, number> = { ...FILE_SECONDS };
for (const file of report.testResults) seconds[relative(ROOT, file.name)] = Math.round((file.endTime - file.startTime) / 100) / 10;
const entries = Object.entries(seconds)
  .filter(([path]) => existsSync(join(ROOT, path)))
  .sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
const text = readFileSync(join(ROOT, 'test', 'file-durations.ts'), 'utf8');
const head = text.slice(0, text.indexOf('export const FILE_SECONDS'));
writeFileSync(
  join(ROOT, 'test', 'file-durations.ts'),
  `${head}export const FILE_SECONDS: Readonly<Record<string, number>> = {\n${entries.map(([path, s]) => `  '${path}': ${s.toFixed(1)},`).join('\n')}\n};\n`,
);
console.log(`test/file-durations.ts: ${entries.length} files (${report.testResults.length} from ${reportPath})`);
