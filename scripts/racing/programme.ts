import type { CourseCategory, RaceType } from '#shared/racing/schema.ts';
import type { Horse } from './horses.ts';
import type { Suitability } from './population.ts';
import type { Random } from './random.ts';
import { FAMILY_NAMES, SPONSOR_TRADES, STAKES_NAMES } from './words.ts';

// What races a meeting programs: class, distance, type and name, and which horses suit each.

export type RaceClass =
  | { kind: 'maiden' }
  | { kind: 'restricted'; wins: 1 | 2 | 3 }
  | { kind: 'benchmark'; rating: number }
  | { kind: 'open' }
  | { kind: 'stakes'; grade: 'Listed' | 'Group 3' | 'Group 2' | 'Group 1' };

type ClassChoice = readonly [RaceClass, number];

const maiden: RaceClass = { kind: 'maiden' };
const restricted = (wins: 1 | 2 | 3): RaceClass => ({ kind: 'restricted', wins });
const bm = (rating: number): RaceClass => ({ kind: 'benchmark', rating });
const stakes = (grade: 'Listed' | 'Group 3' | 'Group 2' | 'Group 1'): RaceClass => ({ kind: 'stakes', grade });

const CLASS_MIX: Record<CourseCategory, readonly ClassChoice[]> = {
  Metropolitan: [
    [maiden, 8],
    [restricted(1), 4],
    [restricted(2), 3],
    [restricted(3), 4],
    [bm(72), 10],
    [bm(78), 14],
    [bm(84), 12],
    [bm(88), 8],
    [bm(90), 6],
    [{ kind: 'open' }, 4],
    [stakes('Listed'), 10],
    [stakes('Group 3'), 7],
    [stakes('Group 2'), 4],
  ],
  Provincial: [
    [maiden, 24],
    [restricted(1), 10],
    [restricted(2), 6],
    [restricted(3), 6],
    [bm(58), 8],
    [bm(64), 14],
    [bm(68), 8],
    [bm(72), 10],
    [bm(78), 5],
    [stakes('Listed'), 2],
  ],
  Country: [
    [maiden, 32],
    [restricted(1), 14],
    [restricted(2), 5],
    [restricted(3), 3],
    [bm(50), 8],
    [bm(55), 6],
    [bm(58), 12],
    [bm(64), 14],
    [bm(70), 4],
    [{ kind: 'open' }, 2],
  ],
};

const STAKES_THRESHOLD = { Listed: 85, 'Group 3': 90, 'Group 2': 95, 'Group 1': 100 } as const;

export function chooseClass(category: CourseCategory, saturday: boolean, random: Random): RaceClass {
  if (category === 'Metropolitan' && saturday && random.chance(0.03)) return stakes('Group 1');
  return random.weighted(CLASS_MIX[category]);
}

export function classLabel(raceClass: RaceClass): string {
  switch (raceClass.kind) {
    case 'maiden':
      return 'Maiden';
    case 'restricted':
      return `Class ${raceClass.wins}`;
    case 'benchmark':
      return `BM${raceClass.rating}`;
    case 'open':
      return 'Open';
    case 'stakes':
      return raceClass.grade;
  }
}

export function isStakes(raceClass: RaceClass): boolean {
  return raceClass.kind === 'stakes';
}

export function suitability(raceClass: RaceClass): Suitability {
  switch (raceClass.kind) {
    case 'maiden':
      return (h: Horse) => (h.wins === 0 ? 0 : Infinity);
    case 'restricted': {
      const limit = raceClass.wins;
      return (h: Horse) => (h.wins > limit ? Infinity : h.wins === 0 ? 2 : 0);
    }
    case 'benchmark': {
      const centre = raceClass.rating - 4;
      return (h: Horse) => (h.wins === 0 ? 3 : Math.max(0, Math.abs(h.ability - centre) - 8) / 4);
    }
    case 'open':
      return (h: Horse) => (h.wins === 0 ? Infinity : Math.max(0, 75 - h.ability) / 5);
    case 'stakes': {
      const threshold = STAKES_THRESHOLD[raceClass.grade];
      return (h: Horse) => (h.wins === 0 ? Infinity : Math.max(0, threshold - h.ability) / 4);
    }
  }
}

/** Ability and wins of a horse recruited to fill a race that its region's horses could not. */
export function recruitProfile(raceClass: RaceClass, random: Random): { ability: number; wins: number } {
  switch (raceClass.kind) {
    case 'maiden':
      return { ability: random.normal(56, 11), wins: 0 };
    case 'restricted':
      return { ability: random.normal(60, 8), wins: random.int(1, raceClass.wins) };
    case 'benchmark':
      return { ability: random.normal(raceClass.rating - 4, 4), wins: random.int(1, 6) };
    case 'open':
      return { ability: random.normal(80, 5), wins: random.int(3, 9) };
    case 'stakes':
      return { ability: random.normal(STAKES_THRESHOLD[raceClass.grade] + 2, 4), wins: random.int(2, 10) };
  }
}

const FLAT_DISTANCES: Record<CourseCategory, readonly (readonly [number, number])[]> = {
  Metropolitan: [
    [1000, 8],
    [1100, 10],
    [1200, 22],
    [1300, 8],
    [1400, 14],
    [1500, 5],
    [1600, 14],
    [1800, 6],
    [2000, 7],
    [2200, 2],
    [2400, 2],
    [2500, 1],
    [3200, 0.3],
  ],
  Provincial: [
    [1000, 14],
    [1100, 10],
    [1200, 22],
    [1300, 6],
    [1400, 14],
    [1500, 4],
    [1600, 12],
    [1700, 2],
    [1800, 5],
    [2000, 5],
    [2200, 1],
    [2400, 1],
  ],
  Country: [
    [900, 6],
    [1000, 18],
    [1050, 4],
    [1100, 10],
    [1200, 20],
    [1300, 5],
    [1400, 12],
    [1500, 3],
    [1600, 10],
    [1800, 4],
    [2000, 3],
    [2200, 1],
  ],
};

export function chooseDistance(category: CourseCategory, raceClass: RaceClass, random: Random): number {
  const distance = random.weighted(FLAT_DISTANCES[category]);
  // Stakes races are rarely sprints of under 1100 m.
  return isStakes(raceClass) ? Math.max(1100, distance) : distance;
}

export function jumpsRace(random: Random): { raceType: RaceType; distance: number } {
  return random.chance(0.6)
    ? { raceType: 'Hurdle', distance: random.pick([3000, 3100, 3200, 3400]) }
    : { raceType: 'Steeplechase', distance: random.pick([3200, 3500, 3900, 4000]) };
}

export function raceName(raceClass: RaceClass, raceType: RaceType, courseName: string, random: Random): string {
  const sponsor = `${random.pick(FAMILY_NAMES)} ${random.pick(SPONSOR_TRADES)}`;
  if (raceType !== 'Flat') return `${sponsor} ${raceType}`;
  switch (raceClass.kind) {
    case 'maiden':
      return `${sponsor} Maiden Plate`;
    case 'restricted':
      return `${sponsor} Class ${raceClass.wins} Handicap`;
    case 'benchmark':
      return `${sponsor} Benchmark ${raceClass.rating} Handicap`;
    case 'open':
      return random.chance(0.5) ? `${courseName} Cup` : `${sponsor} Quality Handicap`;
    case 'stakes':
      return `${random.pick(STAKES_NAMES)} Stakes`;
  }
}

/** Kilograms allotted: set weights for maidens and stakes, a handicap otherwise. */
export function allottedWeight(raceClass: RaceClass, raceType: RaceType, horse: Horse, random: Random): number {
  const halfKilos = (kg: number) => Math.round(kg * 2) / 2;
  if (raceType !== 'Flat') return halfKilos(63 + random.next() * 8);
  switch (raceClass.kind) {
    case 'maiden':
      return random.pick([55.5, 57, 57.5, 58.5]);
    case 'stakes':
      return halfKilos(54 + random.next() * 5);
    case 'restricted':
    case 'open':
    case 'benchmark': {
      const base = raceClass.kind === 'benchmark' ? raceClass.rating : raceClass.kind === 'open' ? 80 : 60;
      return Math.min(61.5, Math.max(54, halfKilos(58 + (horse.ability - base) * 0.45 + random.normal(0, 0.8))));
    }
  }
}
