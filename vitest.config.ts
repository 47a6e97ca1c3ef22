import { defineConfig } from 'vitest/config';
import { writeStylesheetCopies } from './scripts/asset-manifest';
import { useWorkerdV8Flags } from './scripts/workerd-v8';
import { PROJECT_TEST_DEFAULTS } from './test/project-defaults';
import { LongestFirstSequencer } from './test/sequencer';

// Every workerd of the run (the test Workers, and the auth and other services the global setups
// start) runs V8 without background threads. With them, on a machine of two cores and anything
// else busy, V8 can livelock: a background Maglev compile waits for a garbage collection while
// the main thread spins in a cppgc sweep task waiting for the one background thread that compile
// holds. The process then sits at 100 % CPU and never returns to JavaScript, so no test timeout
// fires. See scripts/workerd-v8.
useWorkerdV8Flags(['--single-threaded']);

// The shared stylesheet's copies in the services' assets are git-ignored, generated from
// workers/shared/views/page.css: every run writes them before a Worker serves its assets.
writeStylesheetCopies();

// One project per Worker (each runs inside workerd with its own bindings), plus the Node-side
// scripts. The racing database and its relay are started once for all of them.
export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    projects: ['test/*/vitest.config.ts'],
    // Two test files at a time, whatever the machine reports. The files share one embedded PGlite
    // (one statement at a time), the relay, the Graph stand-in and Chromium, so more than two would
    // mostly queue on those; two overlap one file's workerd start-up and migrations with another's
    // tests. workerd's V8 runs single-threaded (above), which is what makes two at once safe on two
    // cores.
    maxWorkers: 2,
    // Longest files first, so that neither slot idles at the end of the run (test/sequencer.ts).
    sequence: { sequencer: LongestFirstSequencer },
    silent: 'passed-only',
    ...PROJECT_TEST_DEFAULTS,
  },
});
