import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ROOT } from './workers.ts';

// Each Worker and each test project is its own TypeScript program (each has its own generated Env),
// checked here as `tsc -p <project>` would, but in one process, one program after another:
// - a file parsed (and bound) once serves every later program that has it with the same parse
//   settings: the standard libraries, @cloudflare/workers-types, hono, zod… are read once, not
//   twenty times (TypeScript's language service shares source files between projects the same way);
// - a Worker's test project (test/<name>) includes the Worker's sources, already checked in full by
//   the Worker's own program (workers/<name>) with the same options and the Worker's own Env; the
//   test program only adds test types (vitest-pool-workers, test bindings), so its diagnostics are
//   asked for its other files (the tests), and the Worker's files are checked there as far as the
//   tests use them.
const projects = ['workers', 'test']
  .flatMap((dir) => readdirSync(join(ROOT, dir)).map((name) => join(dir, name)))
  .concat(['scripts', 'bench', 'bench/worker'])
  .filter((dir) => existsSync(join(ROOT, dir, 'tsconfig.json')));

const formatHost: ts.FormatDiagnosticsHost = {
  getCanonicalFileName: (name) => name,
  getCurrentDirectory: () => ROOT,
  getNewLine: () => '\n',
};

const configHost: ts.ParseConfigFileHost = {
  ...ts.sys,
  onUnRecoverableConfigFileDiagnostic: (diagnostic) => {
    throw new Error(ts.formatDiagnostics([diagnostic], formatHost));
  },
};

// Parsed source files, by what their parse depends on.
const parsedFiles = new Map<string, ts.SourceFile>();

function host(options: ts.CompilerOptions): ts.CompilerHost {
  const base = ts.createCompilerHost(options, true);
  // Parsing and binding read the options (target, jsx, strictness…); only which files a program
  // has (lib, types) and how it resolves JSON imports may differ between programs sharing a file.
  const { types: _types, lib: _lib, configFilePath: _path, resolveJsonModule: _json, ...parseOptions } = options;
  const settings = JSON.stringify(Object.entries(parseOptions).sort(([a], [b]) => (a < b ? -1 : 1)));
  return {
    ...base,
    getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile) {
      const parse = typeof languageVersionOrOptions === 'object' ? languageVersionOrOptions : { languageVersion: languageVersionOrOptions };
      const key = `${settings}|${parse.languageVersion}|${parse.impliedNodeFormat}|${parse.jsDocParsingMode}|${fileName}`;
      const cached = shouldCreateNewSourceFile ? undefined : parsedFiles.get(key);
      if (cached) return cached;
      const file = base.getSourceFile(fileName, languageVersionOrOptions, onError, shouldCreateNewSourceFile);
      if (file) parsedFiles.set(key, file);
      return file;
    },
  };
}

/** Options that decide how a file type-checks: all but the ambient `types` a test program adds. */
function checkingOptions(options: ts.CompilerOptions): string {
  const { types: _types, configFilePath: _path, ...rest } = options;
  return JSON.stringify(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1)));
}

// The files each Worker's program checked in full, with its options.
const workerPrograms = new Map<string, { files: Set<string>; options: ts.CompilerOptions }>();

function check(project: string): { ok: boolean; output: string; skipped: number } {
  const parsed = ts.getParsedCommandLineOfConfigFile(join(ROOT, project, 'tsconfig.json'), {}, configHost);
  if (!parsed) return { ok: false, output: `cannot read ${project}/tsconfig.json`, skipped: 0 };
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    projectReferences: parsed.projectReferences,
    configFileParsingDiagnostics: parsed.errors,
    host: host(parsed.options),
  });
  const own = (file: ts.SourceFile) => !program.isSourceFileFromExternalLibrary(file) && !program.isSourceFileDefaultLibrary(file);

  // What `tsc` reports, in its order: config, syntax, then options and global, then semantics.
  const diagnostics: ts.Diagnostic[] = [...program.getConfigFileParsingDiagnostics()];
  const before = diagnostics.length;
  diagnostics.push(...program.getSyntacticDiagnostics());
  let skipped = 0;
  if (diagnostics.length === before) {
    diagnostics.push(...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics());
    if (diagnostics.length === before) {
      const worker = project.startsWith('test/') ? workerPrograms.get(project.replace(/^test\//, 'workers/')) : undefined;
      const covered = worker && checkingOptions(worker.options) === checkingOptions(parsed.options) ? worker.files : new Set<string>();
      for (const file of program.getSourceFiles()) {
        if (covered.has(file.fileName)) {
          skipped++;
          continue;
        }
        diagnostics.push(...program.getSemanticDiagnostics(file));
      }
    }
  }
  if (project.startsWith('workers/')) {
    workerPrograms.set(project, {
      files: new Set(
        program
          .getSourceFiles()
          .filter(own)
          .map((file) => file.fileName),
      ),
      options: parsed.options,
    });
  }
  return { ok: diagnostics.length === 0, output: ts.formatDiagnostics(ts.sortAndDeduplicateDiagnostics(diagnostics), formatHost), skipped };
}

let failed = false;
for (const project of projects) {
  const { ok, output, skipped } = check(project);
  if (ok) {
    console.log(
      `✓ tsc ${project}${skipped ? ` (${skipped} of its files checked in full with ${project.replace(/^test\//, 'workers/')})` : ''}`,
    );
  } else {
    failed = true;
    console.error(`✗ tsc ${project}\n${output}`);
  }
}
process.exit(failed ? 1 : 0);
