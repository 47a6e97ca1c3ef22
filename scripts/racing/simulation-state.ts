// The state a racing simulation keeps from day to day (people, horses and their populations, the
// random streams, the rows waiting to be written) and the supply of horses to its fields.

import { type Day, isoDate, parseIsoDate, seasonYear } from './calendar.ts';
import { COURSE_PROFILES, REGIONS, type Region } from './courses.ts';
import { type Horse, HorseRegistry, type NewHorse } from './horses.ts';
import { type People, licensePeople } from './people.ts';
import { RegionPopulation } from './population.ts';
import { type RaceClass, isStakes, recruitProfile, suitability } from './programme.ts';
import { Random } from './random.ts';
import { type CourseEntry, Schedule } from './schedule.ts';
import { DEFAULT_SEED, SIZE_PROFILES } from './sizes.ts';
import { RACING_TABLE_NAMES, batchOf, perTable, type RacingBatch, type RacingRows, type RunnerRow } from './tables.ts';
import { TRACK_CONDITIONS } from './words.ts';
import type { GenerateOptions } from './generate.ts';

/** Days at the start of the data set whose fields are filled by horses with a past record. */
const WARM_UP_DAYS = 42;
const IDLE_RETIREMENT_DAYS = 90;

export interface Starter {
  horse: Horse;
  row: RunnerRow;
}

export class Output {
  private pending: RacingRows = Output.empty();

  static empty(): RacingRows {
    return perTable(() => []);
  }

  get rows(): RacingRows {
    return this.pending;
  }

  *drain(): Generator<RacingBatch> {
    const rows = this.pending;
    this.pending = Output.empty();
    for (const table of RACING_TABLE_NAMES) {
      const batch = batchOf(rows, table);
      if (batch.rows.length > 0) yield batch;
    }
  }
}

export function trackConditionLabel(rating: number): string {
  const word = rating <= 2 ? 'Firm' : rating <= 4 ? 'Good' : rating <= 7 ? 'Soft' : 'Heavy';
  return `${word} ${rating}`;
}

export abstract class SimulationState {
  protected readonly output = new Output();
  protected readonly people: People;
  protected readonly registry: HorseRegistry;
  protected readonly populations = new Map<Region, RegionPopulation>();
  protected readonly courses: CourseEntry[];
  protected readonly schedule: Schedule;
  protected readonly fields: Random;
  protected readonly market: Random;
  protected readonly trials: Random;
  protected readonly clock: Random;
  protected readonly firstDay: Day;
  protected readonly today: Day;
  protected readonly ids = { meeting: 0, race: 0, runner: 0, sectional: 0, trialRun: 0 };
  /** Jockeys already riding at a meeting on the day being simulated. */
  protected bookedJockeys = new Set<number>();

  constructor(options: GenerateOptions) {
    const seed = options.seed ?? DEFAULT_SEED;
    const profile = SIZE_PROFILES[options.size];
    this.today = parseIsoDate(options.today);
    this.firstDay = this.today - (options.historyDays ?? profile.historyDays);
    this.people = licensePeople(seed, profile.scale);
    this.registry = new HorseRegistry(seed, this.people, this.today);
    for (const region of REGIONS) this.populations.set(region, new RegionPopulation());
    this.courses = COURSE_PROFILES.map((course, index) => ({ id: index + 1, profile: course }));
    this.schedule = new Schedule(this.courses, profile.scale, new Random(seed, 'schedule'));
    this.fields = new Random(seed, 'fields');
    this.market = new Random(seed, 'market');
    this.trials = new Random(seed, 'trials');
    this.clock = new Random(seed, 'clock');
  }

  protected population(region: Region): RegionPopulation {
    const population = this.populations.get(region);
    if (!population) throw new Error(`no population for ${region}`);
    return population;
  }

  protected addHorse(created: NewHorse): Horse {
    this.output.rows.horses.push(created.row);
    this.output.rows.sales.push(...created.sales);
    return created.horse;
  }

  protected debutant(region: Region, day: Day): Horse {
    const age = this.fields.weighted([
      [2, 35],
      [3, 50],
      [4, 15],
    ] as const);
    const ability = this.fields.normal(56, 11);
    return this.addHorse(this.registry.foal(region, day, { age, starts: 0, wins: 0, ability }));
  }

  /** A horse from outside the simulated field (before the data set began, or from elsewhere). */
  protected recruit(region: Region, day: Day, raceClass: RaceClass): Horse {
    const random = this.fields;
    if (raceClass.kind === 'maiden' && day >= this.firstDay + WARM_UP_DAYS) return this.debutant(region, day);
    const { ability, wins } = recruitProfile(raceClass, random);
    const starts = wins === 0 ? random.int(0, 6) : wins + random.int(wins, wins * 4 + 4);
    const age = Math.min(9, 2 + Math.ceil(starts / 9) + random.int(0, 1));
    return this.addHorse(this.registry.foal(region, day, { age, starts, wins, ability }));
  }

  /** Old horses, and horses left unraced for months (their owners gave up), leave the population. */
  protected hasRetired(horse: Horse, day: Day): boolean {
    return seasonYear(day) - horse.foalingYear >= 10 || day - horse.readyDay > IDLE_RETIREMENT_DAYS;
  }

  protected enter(region: Region, day: Day, raceClass: RaceClass): Horse {
    const population = this.population(region);
    const fits = suitability(raceClass);
    const probes = isStakes(raceClass) ? 40 : 12;
    const ready = population.take(fits, probes, this.fields, (h) => this.hasRetired(h, day));
    if (ready) return ready;
    // Short of ready horses, a trainer brings one back a few days early.
    const early = population.takeReturning(day + 7);
    if (early && fits(early) < Infinity && !this.hasRetired(early, day)) return early;
    if (early) population.rest(early, early.readyDay);
    return this.recruit(region, day, raceClass);
  }

  protected trackRating(): number {
    const [, rating] = TRACK_CONDITIONS[this.fields.weightedIndex(TRACK_CONDITIONS.map(([, , w]) => w))] ?? ['Good 4', 4];
    return rating;
  }

  protected addMeeting(course: CourseEntry, day: Day, trackRating: number, isTrial: boolean): number {
    const id = ++this.ids.meeting;
    this.output.rows.meetings.push({
      id,
      date: isoDate(day),
      courseId: course.id,
      trackCondition: trackConditionLabel(trackRating),
      trackRating,
      isTrial,
    });
    return id;
  }

  protected restAcceptances(field: Starter[], day: Day): void {
    for (const s of field) this.population(s.horse.region).rest(s.horse, day + this.restDays());
  }

  protected restDays(): number {
    const random = this.clock;
    const kind = random.next();
    if (kind < 0.65) return random.int(14, 24);
    if (kind < 0.92) return random.int(25, 42);
    return random.int(60, 150);
  }

  protected retires(horse: Horse, day: Day): boolean {
    const age = seasonYear(day) - horse.foalingYear;
    const rate = age >= 8 ? 0.2 : horse.wins > 0 ? 0.03 : horse.starts >= 6 ? 0.15 : 0.02;
    return this.clock.chance(rate);
  }
}
