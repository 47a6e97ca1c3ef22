import { type Day, monthOf, utcTimestamp, weekday } from './calendar.ts';
import { REGIONS, type Region } from './courses.ts';
import type { Horse } from './horses.ts';
import { lastSixHundred, runRace, sectionalTimes, startingPrices } from './market.ts';
import type { RegionRoster } from './people.ts';
import { type RaceClass, allottedWeight, chooseClass, chooseDistance, classLabel, jumpsRace, raceName } from './programme.ts';
import type { Random } from './random.ts';
import type { CourseEntry, ScheduledMeeting } from './schedule.ts';
import { ACCEPTANCE_DAYS, type RacingSize } from './sizes.ts';
import { appendBatch, perTable, type CourseRow, type RacingBatch, type RacingRows, type RacingTableName } from './tables.ts';
import { Output, SimulationState, type Starter, trackConditionLabel } from './simulation-state.ts';

export interface GenerateOptions {
  size: RacingSize;
  seed?: number;
  /** YYYY-MM-DD: meetings before it have results, it and the next three days have acceptances. */
  today: string;
  /** Days of results before today, instead of the size's own (for tests). */
  historyDays?: number;
}

/** Divides ability differences into the log-strengths of the market model. */
const ABILITY_PER_STRENGTH = 11.5;
/** Race-day form: how far a horse runs above or below its ability. */
const FORM_NOISE = 0.5;
const SCRATCHING_RATE = 0.205;
/** Scratchings already in on acceptance days: today, tomorrow, then the two days after. */
const EARLY_SCRATCHING_RATES = [0.12, 0.06, 0.03, 0.03];
const RIDER_TBA_RATES = [0, 0.05, 0.15, 0.15];
const TRAINER_CHANGE_RATE = 0.01;
/** Share of barrier-trial runners that are raced horses returning from a spell (the rest are unraced). */
const RETURNING_TRIALLISTS = 0.8;

/** Riders available to a meeting and how much each is in demand. */
interface RiderPool {
  ids: number[];
  weights: number[];
}

/** Winning time in seconds for a distance on a track rating. */
function winningTime(distance: number, trackRating: number, random: Random): number {
  const metresPerSecond = 17.4 - (Math.max(0, distance - 1000) / 1000) * 0.55 - (trackRating - 4) * 0.18;
  return distance / metresPerSecond + random.normal(0, 0.5);
}

const hundredths = (value: number) => Math.round(value * 100) / 100;

/** Efraimidis–Spirakis: `count` distinct indices drawn in proportion to weights. */
function weightedSample(weights: readonly number[], count: number, random: Random): number[] {
  return weights
    .map((w, index) => ({ index, key: -Math.log(1 - random.next()) / w }))
    .sort((a, b) => a.key - b.key)
    .slice(0, count)
    .map((k) => k.index);
}

class RacingSimulation extends SimulationState {
  *run(): Generator<RacingBatch> {
    const rows = this.output.rows;
    rows.courses.push(
      ...this.courses.map(
        ({ id, profile }): CourseRow => ({
          id,
          name: profile.name,
          state: profile.state,
          country: profile.country,
          category: profile.category,
        }),
      ),
    );
    rows.trainers.push(...this.people.trainers);
    rows.jockeys.push(...this.people.jockeys);
    yield* this.output.drain();
    const lastDay = this.today + ACCEPTANCE_DAYS - 1;
    for (let day = this.firstDay; day <= lastDay; day++) {
      this.simulateDay(day);
      yield* this.output.drain();
    }
  }

  private simulateDay(day: Day): void {
    for (const population of this.populations.values()) population.advanceTo(day);
    this.bookedJockeys = new Set();
    const acceptances = day >= this.today;
    const meetings = this.schedule.raceMeetings(day, acceptances);
    if (!acceptances) {
      const racing = new Set(meetings.map((m) => m.course.id));
      for (const course of this.schedule.trialMeetings(day, racing, weekday(day) === 2)) this.trialMeeting(course, day);
    }
    for (const meeting of meetings) this.raceMeeting(meeting, day);
  }

  private raceCount(meeting: ScheduledMeeting, day: Day): number {
    const random = this.fields;
    switch (meeting.course.profile.category) {
      case 'Metropolitan':
        return weekday(day) === 6
          ? random.weighted([
              [9, 45],
              [10, 45],
              [8, 10],
            ] as const)
          : random.weighted([
              [8, 60],
              [9, 25],
              [7, 15],
            ] as const);
      case 'Provincial':
        return random.weighted([
          [7, 35],
          [8, 45],
          [9, 15],
          [6, 5],
        ] as const);
      case 'Country':
        return random.weighted([
          [5, 10],
          [6, 30],
          [7, 35],
          [8, 25],
        ] as const);
    }
  }

  /**
   * Picks riders for a meeting: local riders not booked elsewhere today, the best in most demand,
   * and riders from other regions when the locals run short (as in the Northern Territory).
   */
  private jockeyRoster(region: Region, size: number, metropolitan: boolean): RiderPool {
    const exponent = metropolitan ? 1.5 : 0.6;
    const candidates: RiderPool = { ids: [], weights: [] };
    const consider = (roster: RegionRoster, visiting: boolean) => {
      roster.ids.forEach((id, i) => {
        if (this.bookedJockeys.has(id)) return;
        candidates.ids.push(id);
        candidates.weights.push(Math.pow(roster.weights[i] ?? 0, exponent) * (visiting ? 0.2 : 1));
      });
    };
    consider(this.people.jockeysByRegion[region], false);
    if (candidates.ids.length < size) {
      for (const other of REGIONS) if (other !== region) consider(this.people.jockeysByRegion[other], true);
    }
    const chosen = weightedSample(candidates.weights, size, this.fields);
    const roster: RiderPool = {
      ids: chosen.map((k) => candidates.ids[k] ?? 0),
      weights: chosen.map((k) => candidates.weights[k] ?? 0),
    };
    for (const id of roster.ids) this.bookedJockeys.add(id);
    return roster;
  }

  private raceMeeting(meeting: ScheduledMeeting, day: Day): void {
    const random = this.fields;
    const { profile } = meeting.course;
    const region = profile.region;
    let trackRating = this.trackRating();
    const meetingId = this.addMeeting(meeting.course, day, trackRating, false);
    const raceCount = this.raceCount(meeting, day);
    const fieldSizes = Array.from({ length: raceCount }, () => {
      const cap = profile.category === 'Country' ? 14 : 16;
      return Math.min(cap, Math.max(4, Math.round(random.normal(9.5, 3))));
    });
    const roster = this.jockeyRoster(region, Math.max(...fieldSizes) + 4, profile.category === 'Metropolitan');
    const firstRace = meeting.night ? 17 * 60 + 30 + 15 * random.int(0, 3) : 12 * 60 + 5 * random.int(0, 18);
    const interval = random.pick([30, 35, 35, 40]);
    let changeAfter = random.chance(0.1) ? random.int(2, raceCount - 1) : Infinity;
    const jumpsSeason = (region === 'VIC' || region === 'SA') && profile.category !== 'Metropolitan';
    for (let raceNumber = 1; raceNumber <= raceCount; raceNumber++) {
      if (raceNumber > changeAfter) {
        trackRating = Math.min(10, Math.max(1, trackRating + (random.chance(0.75) ? 1 : -1)));
        changeAfter = Infinity;
      }
      const raceClass = chooseClass(profile.category, weekday(day) === 6, random);
      const jumps = jumpsSeason && isJumpsMonth(day) && random.chance(0.04) ? jumpsRace(random) : undefined;
      const raceType = jumps?.raceType ?? 'Flat';
      const raceId = ++this.ids.race;
      this.output.rows.races.push({
        id: raceId,
        meetingId,
        raceNumber,
        name: raceName(raceClass, raceType, profile.name, random),
        distance: jumps?.distance ?? chooseDistance(profile.category, raceClass, random),
        class: classLabel(raceClass),
        raceType,
        trackCondition: trackConditionLabel(trackRating),
        startTime: utcTimestamp(day, firstRace + (raceNumber - 1) * interval, profile.zone),
      });
      const starters = this.declareField(raceId, region, day, raceClass, raceType, fieldSizes[raceNumber - 1] ?? 8, roster);
      if (day < this.today) this.runRaceWithResults(starters, day, profile.category === 'Metropolitan', trackRating);
      else this.restAcceptances(starters, day);
    }
  }

  private declareField(
    raceId: number,
    region: Region,
    day: Day,
    raceClass: RaceClass,
    raceType: 'Flat' | 'Hurdle' | 'Steeplechase',
    size: number,
    roster: RiderPool,
  ): Starter[] {
    const random = this.fields;
    const horses = Array.from({ length: size }, () => this.enter(region, day, raceClass));
    const weights = horses.map((horse) => allottedWeight(raceClass, raceType, horse, random));
    // TAB numbers follow the weights, top weight first; barriers are drawn.
    const order = horses.map((_, i) => i).sort((a, b) => (weights[b] ?? 0) - (weights[a] ?? 0) || a - b);
    const barriers = random.shuffle(Array.from({ length: size }, (_, i) => i + 1));
    // Better-fancied horses get the busier riders.
    const riders = weightedSample(roster.weights, size, random).map((k) => roster.ids[k] ?? 0);
    const byMerit = horses.map((h, i) => ({ i, merit: h.ability + random.normal(0, 10) })).sort((a, b) => b.merit - a.merit);
    const riderOf = new Map<number, number>();
    byMerit.forEach(({ i }, rank) => riderOf.set(i, riders[rank] ?? 0));
    const acceptanceDay = day - this.today;
    const scratchRate = acceptanceDay < 0 ? SCRATCHING_RATE : (EARLY_SCRATCHING_RATES[acceptanceDay] ?? 0);
    const tbaRate = acceptanceDay < 0 ? 0 : (RIDER_TBA_RATES[acceptanceDay] ?? 0);
    const starters = order.map((i, tabIndex): Starter => {
      const horse = horses[i];
      if (!horse) throw new Error('field and order disagree');
      if (random.chance(TRAINER_CHANGE_RATE)) {
        const trainers = this.people.trainersByRegion[region];
        horse.trainerId = trainers.ids[random.weightedIndex(trainers.weights)] ?? horse.trainerId;
      }
      const scratched = random.chance(scratchRate);
      const riderKnown = !random.chance(scratched ? 0.15 : tbaRate);
      return {
        horse,
        row: {
          id: ++this.ids.runner,
          raceId,
          horseId: horse.id,
          jockeyId: riderKnown ? (riderOf.get(i) ?? null) : null,
          trainerId: horse.trainerId,
          tabNumber: tabIndex + 1,
          barrier: barriers[i] ?? i + 1,
          weight: weights[i] ?? 57,
          startingPrice: null,
          scratched,
          finishingPosition: null,
          margin: null,
        },
      };
    });
    // A race needs a field: reinstate scratchings until at least two (or all) remain.
    for (const starter of starters) {
      if (starters.filter((s) => !s.row.scratched).length >= Math.min(2, starters.length)) break;
      if (starter.row.scratched) {
        starter.row.scratched = false;
        starter.row.jockeyId ??= riderOf.get(horses.indexOf(starter.horse)) ?? null;
      }
    }
    this.output.rows.runners.push(...starters.map((s) => s.row));
    return starters;
  }

  private runRaceWithResults(field: Starter[], day: Day, timed: boolean, trackRating: number): void {
    const random = this.market;
    const starters = field.filter((s) => !s.row.scratched);
    const meanAbility = starters.reduce((sum, s) => sum + s.horse.ability, 0) / starters.length;
    const strengths = starters.map((s) => (s.horse.ability - meanAbility) / ABILITY_PER_STRENGTH + random.normal(0, FORM_NOISE));
    const prices = startingPrices(strengths, random);
    const placings = runRace(strengths, random);
    starters.forEach((s, i) => {
      s.row.startingPrice = prices[i] ?? null;
    });
    for (const { starter, position, margin } of placings) {
      const s = starters[starter];
      if (!s) continue;
      s.row.finishingPosition = position;
      s.row.margin = margin;
      s.horse.starts += 1;
      if (position === 1) s.horse.wins += 1;
    }
    if (timed) this.sectionals(starters, trackRating);
    for (const s of field) {
      if (s.row.scratched) this.population(s.horse.region).rest(s.horse, day + random.int(3, 10));
      else if (!this.retires(s.horse, day)) this.population(s.horse.region).rest(s.horse, day + this.restDays());
    }
  }

  private sectionals(starters: Starter[], trackRating: number): void {
    const random = this.market;
    const lastSix = lastSixHundred(random, trackRating);
    for (const s of starters) {
      const { margin } = s.row;
      if (margin === null) continue;
      for (const [segment, time] of sectionalTimes(random, lastSix, margin)) {
        this.output.rows.sectional_times.push({ id: ++this.ids.sectional, runnerId: s.row.id, segment, timeSeconds: hundredths(time) });
      }
    }
  }

  private trialMeeting(course: CourseEntry, day: Day): void {
    const random = this.trials;
    const region = course.profile.region;
    const population = this.population(region);
    const trackRating = Math.min(this.trackRating(), 6);
    const meetingId = this.addMeeting(course, day, trackRating, true);
    const riders = this.people.jockeysByRegion[region];
    const heats = random.int(5, 9);
    for (let heatNumber = 1; heatNumber <= heats; heatNumber++) {
      const distance = random.pick([800, 850, 900, 950, 1000, 1000, 1050, 1100]);
      const size = random.int(4, 10);
      const horses: Horse[] = [];
      for (let i = 0; i < size; i++) {
        const returning = random.chance(RETURNING_TRIALLISTS) ? population.takeReturning(day + 21) : undefined;
        if (returning) {
          population.rest(returning, Math.max(returning.readyDay, day + random.int(7, 14)));
          horses.push(returning);
        } else {
          const prospect = this.debutant(region, day);
          population.rest(prospect, day + random.int(14, 35));
          horses.push(prospect);
        }
      }
      const strengths = horses.map((h) => (h.ability - 60) / ABILITY_PER_STRENGTH + random.normal(0, 0.8));
      const winnerTime = winningTime(distance, trackRating, random) * 1.02;
      const barriers = random.shuffle(horses.map((_, i) => i + 1));
      const jockeyIds = weightedSample(riders.weights, size, random).map((k) => riders.ids[k] ?? 0);
      for (const { starter, position, margin } of runRace(strengths, random, 2.2)) {
        const horse = horses[starter];
        if (!horse) continue;
        this.output.rows.trial_runs.push({
          id: ++this.ids.trialRun,
          meetingId,
          heatNumber,
          distance,
          horseId: horse.id,
          jockeyId: jockeyIds[starter] ?? null,
          trainerId: horse.trainerId,
          barrier: barriers[starter] ?? starter + 1,
          finishingPosition: position,
          margin,
          timeSeconds: hundredths(winnerTime + margin * 0.17),
        });
      }
    }
  }
}

/** Jumps racing runs through the southern winter, May to August. */
function isJumpsMonth(day: Day): boolean {
  const month = monthOf(day);
  return month >= 5 && month <= 8;
}

/** Rows of a generated racing data set, table by table, a day at a time. */
export function* generateRacing(options: GenerateOptions): Generator<RacingBatch> {
  yield* new RacingSimulation(options).run();
}

/** The whole data set in memory (fine for tiny and demo). */
export function collectRacing(options: GenerateOptions): RacingRows {
  const all = Output.empty();
  for (const batch of generateRacing(options)) appendBatch(all, batch);
  return all;
}

/** Row counts per table, by generating without keeping the rows. */
export function countRacing(options: GenerateOptions): Record<RacingTableName, number> {
  const counts = perTable(() => 0);
  for (const batch of generateRacing(options)) counts[batch.table] += batch.rows.length;
  return counts;
}
