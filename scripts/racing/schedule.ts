import { type Day, weekday } from './calendar.ts';
import type { CourseProfile, Region } from './courses.ts';
import type { Random } from './random.ts';

// Which courses race on a day: metropolitan meetings on Saturdays (one per mainland state),
// Wednesdays and some Friday nights, and provincial and country meetings spread by how often
// each course races. Barrier trials are held on weekday mornings at courses not racing that day.

/** Race meetings by weekday (Sunday first) at national scale: about 2,600 a year. */
const MEETINGS_BY_WEEKDAY = [5.8, 4.5, 5, 7, 6.5, 7.5, 13.5];
/** Trial meetings by weekday at national scale. */
const TRIALS_BY_WEEKDAY = [0, 1.4, 1.4, 1.4, 1.4, 1.4, 0];

const SATURDAY_METRO: readonly Region[] = ['NSW', 'VIC', 'QLD', 'SA', 'WA'];
const WEDNESDAY_METRO: readonly Region[] = ['NSW', 'VIC', 'WA'];
const FRIDAY_NIGHT_METRO: readonly Region[] = ['VIC', 'NSW'];

export interface CourseEntry {
  id: number;
  profile: CourseProfile;
}

export interface ScheduledMeeting {
  course: CourseEntry;
  night: boolean;
}

export class Schedule {
  private readonly metroByRegion = new Map<Region, CourseEntry[]>();
  private readonly others: CourseEntry[];
  private readonly trialCourses: CourseEntry[];

  constructor(
    courses: readonly CourseEntry[],
    private readonly scale: number,
    private readonly random: Random,
  ) {
    for (const course of courses) {
      const { category, country, region } = course.profile;
      if (category === 'Metropolitan' && country === 'AUS') {
        const list = this.metroByRegion.get(region) ?? [];
        list.push(course);
        this.metroByRegion.set(region, list);
      }
    }
    this.others = courses.filter((c) => c.profile.category !== 'Metropolitan' || c.profile.country === 'NZ');
    this.trialCourses = courses.filter((c) => c.profile.category !== 'Country');
  }

  /** Rounds up with probability equal to the fraction, so small scales keep the right mean. */
  private stochasticRound(mean: number): number {
    const whole = Math.floor(mean);
    return whole + (this.random.chance(mean - whole) ? 1 : 0);
  }

  raceMeetings(day: Day, atLeastOne: boolean): ScheduledMeeting[] {
    const dow = weekday(day);
    const meetings: ScheduledMeeting[] = [];
    const metro = (regions: readonly Region[], perWeek: number, night: boolean) => {
      const count = this.stochasticRound(perWeek * this.scale);
      for (const region of this.random.shuffle([...regions]).slice(0, count)) {
        const candidates = this.metroByRegion.get(region) ?? [];
        const course = candidates[this.random.weightedIndex(candidates.map((c) => c.profile.meetingsWeight))];
        if (course) meetings.push({ course, night });
      }
    };
    if (dow === 6) metro(SATURDAY_METRO, SATURDAY_METRO.length, false);
    if (dow === 3) metro(WEDNESDAY_METRO, 2.5, false);
    if (dow === 5) metro(FRIDAY_NIGHT_METRO, 0.8, true);
    const total = Math.max(atLeastOne ? 1 : 0, this.stochasticRound((MEETINGS_BY_WEEKDAY[dow] ?? 0) * this.scale));
    const chosen = new Set(meetings.map((m) => m.course.id));
    for (const course of this.pickDistinct(this.others, total - meetings.length, chosen)) {
      meetings.push({ course, night: false });
    }
    return meetings;
  }

  trialMeetings(day: Day, racing: ReadonlySet<number>, atLeastOne: boolean): CourseEntry[] {
    const mean = (TRIALS_BY_WEEKDAY[weekday(day)] ?? 0) * this.scale;
    const count = Math.max(atLeastOne ? 1 : 0, this.stochasticRound(mean));
    return this.pickDistinct(this.trialCourses, count, new Set(racing));
  }

  private pickDistinct(pool: readonly CourseEntry[], count: number, taken: Set<number>): CourseEntry[] {
    const picked: CourseEntry[] = [];
    while (picked.length < count) {
      const open = pool.filter((c) => !taken.has(c.id));
      if (open.length === 0) break;
      const course = open[this.random.weightedIndex(open.map((c) => c.profile.meetingsWeight))];
      if (!course) break;
      taken.add(course.id);
      picked.push(course);
    }
    return picked;
  }
}
