import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { FILE_SECONDS } from './file-durations';

/**
 * The order the run hands test files to its two worker slots: longest first (so that the last
 * files to start are short and neither slot sits idle while the other finishes a long one), the
 * files of a project that shares one workerd among its files (`isolate: false`) kept together (so
 * each slot's workerd serves them in turn instead of restarting between projects), and no two
 * files of an `EXCLUSIVE` project next to each other (they take turns anyway; see
 * test/support/one-at-a-time.ts).
 *
 * A file's expected time is the last run's on this machine (vitest's cache, in
 * node_modules/.vite) or, on a fresh clone, the committed FILE_SECONDS (`scripts/test-durations.ts`
 * refreshes them), else a guess; each file also costs its project's fixed start-up.
 */
export class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = (spec: TestSpecification) => {
      const path = relative(root, spec.moduleId);
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${path}`)?.duration;
      const seconds = cached !== undefined && cached > 0 ? cached / 1000 : (FILE_SECONDS[path] ?? UNKNOWN_FILE_SECONDS);
      return seconds + (spec.project.config.isolate === false ? SHARED_START_SECONDS : FILE_START_SECONDS);
    };
    return orderLongestFirst(
      files.map((spec) => ({
        item: spec,
        group: spec.project.config.sequence.groupOrder,
        project: spec.project.name,
        shared: spec.project.config.isolate === false,
        seconds: estimate(spec),
      })),
      EXCLUSIVE,
    );
  }
}

/** The projects whose files must not run at the same time as each other (Chromium and workerd each). */
export const EXCLUSIVE: ReadonlySet<string> = new Set(['browser']);

/** What a file not in the list is guessed to take. */
const UNKNOWN_FILE_SECONDS = 5;
/** A file's own start: its workerd, its D1 migrations, its modules (measured: a few seconds). */
const FILE_START_SECONDS = 4;
/** A file in a workerd that an earlier file of its project started. */
const SHARED_START_SECONDS = 1;

export interface Timed<T> {
  item: T;
  /** `sequence.groupOrder`: lower groups first, as vitest runs them. */
  group: number;
  project: string;
  /** Whether the project's files share a workerd (kept together). */
  shared: boolean;
  seconds: number;
}

/** The items longest first, as described on LongestFirstSequencer. Pure, for its test. */
export function orderLongestFirst<T>(timed: readonly Timed<T>[], exclusive: ReadonlySet<string>): T[] {
  // Blocks: a shared project's files together (longest first inside), every other file alone.
  const blocks: { group: number; seconds: number; members: Timed<T>[] }[] = [];
  const shared = new Map<string, (typeof blocks)[number]>();
  for (const entry of timed) {
    if (!entry.shared) {
      blocks.push({ group: entry.group, seconds: entry.seconds, members: [entry] });
      continue;
    }
    const key = `${entry.group}\u0000${entry.project}`;
    let block = shared.get(key);
    if (!block) {
      block = { group: entry.group, seconds: 0, members: [] };
      shared.set(key, block);
      blocks.push(block);
    }
    block.seconds += entry.seconds;
    block.members.push(entry);
  }
  for (const block of blocks) block.members.sort((a, b) => b.seconds - a.seconds);
  blocks.sort((a, b) => a.group - b.group || b.seconds - a.seconds);
  // Space the exclusive project's files: one waiting for another would hold a slot idle. A file put
  // off goes after the next other block (never inside a shared project's block).
  const isExclusive = (block: (typeof blocks)[number]) => exclusive.has(block.members[0]!.project);
  const result: (typeof blocks)[number][] = [];
  let held: (typeof blocks)[number][] = [];
  for (const block of blocks) {
    const last = result.at(-1);
    if (last && last.group !== block.group) {
      result.push(...held);
      held = [];
    }
    if (isExclusive(block) && result.at(-1) && isExclusive(result.at(-1)!)) {
      held.push(block);
      continue;
    }
    result.push(block);
    if (!isExclusive(block) && held.length > 0) result.push(held.shift()!);
  }
  result.push(...held);
  return result.flatMap((block) => block.members.map((entry) => entry.item));
}
