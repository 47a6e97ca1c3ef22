import type { Random } from './random.ts';

// The betting market and the race itself. Each starter has a true log-strength; the race is a
// Plackett–Luce draw from those strengths (argmax of strength + Gumbel noise), and the market
// prices a noisy estimate of them with a bookmaker's overround, so the favourite wins about as
// often as it does on Australian tracks (a little over a third of races).

/** Spread of the market's estimate around the true strengths. */
const MARKET_NOISE = 0.45;
/** Lengths per unit of performance difference at the finish. */
const LENGTHS_PER_UNIT = 1.6;
const DEAD_HEAT_FOR_FIRST = 0.005;

function buildOddsLadder(): number[] {
  const ladder: number[] = [];
  const steps: readonly (readonly [from: number, to: number, step: number])[] = [
    [110, 200, 5],
    [200, 400, 10],
    [400, 600, 20],
    [600, 1000, 50],
    [1000, 2000, 100],
  ];
  for (const [from, to, step] of steps) for (let cents = from; cents < to; cents += step) ladder.push(cents / 100);
  ladder.push(20, 21, 26, 31, 34, 41, 51, 61, 71, 81, 101, 126, 151, 201, 251, 301, 501);
  return ladder;
}

/** Prices a starting price is quoted in, in dollars returned per dollar. */
export const ODDS_LADDER: readonly number[] = buildOddsLadder();

export function toLadder(odds: number): number {
  let best = ODDS_LADDER[0] ?? odds;
  for (const price of ODDS_LADDER) {
    if (Math.abs(Math.log(price / odds)) < Math.abs(Math.log(best / odds))) best = price;
  }
  return best;
}

/** Starting prices (decimal odds) for starters with the given true log-strengths. */
export function startingPrices(strengths: readonly number[], random: Random): number[] {
  const estimates = strengths.map((s) => Math.exp(s + random.normal(0, MARKET_NOISE)));
  const total = estimates.reduce((sum, e) => sum + e, 0);
  const overround = 1.15 + random.next() * 0.05;
  return estimates.map((e) => toLadder(total / (e * overround)));
}

export interface Placing {
  /** Index into the starters. */
  starter: number;
  position: number;
  /** Lengths behind the winner. */
  margin: number;
}

/** Finishing order and margins for starters with the given true log-strengths. */
export function runRace(strengths: readonly number[], random: Random, lengthsPerUnit = LENGTHS_PER_UNIT): Placing[] {
  const performances = strengths.map((s, starter) => ({ starter, performance: s + random.gumbel() }));
  performances.sort((a, b) => b.performance - a.performance);
  const deadHeat = performances.length > 1 && random.chance(DEAD_HEAT_FOR_FIRST);
  const winner = performances[0]?.performance ?? 0;
  const placings: Placing[] = [];
  let previousHundredths = 0;
  performances.forEach(({ starter, performance }, index) => {
    if (index === 0 || (index === 1 && deadHeat)) {
      placings.push({ starter, position: 1, margin: 0 });
      return;
    }
    // Margins are called to the nearest tenth of a length, and a nose (0.05) at the least.
    const raw = Math.round((winner - performance) * lengthsPerUnit * 10) * 10;
    const hundredths = Math.max(raw, previousHundredths + 5);
    previousHundredths = hundredths;
    placings.push({ starter, position: index + 1, margin: hundredths / 100 });
  });
  return placings;
}

/** A race's time over its last 600 m, by the going (track rating 1–10); drawn once per race. */
export function lastSixHundred(random: Random, trackRating: number): number {
  return 34 + (trackRating - 4) * 0.45 + random.normal(0, 0.6);
}

/** A starter's L600, L400 and L200 times in seconds, from its race's last-600 m time and its margin in lengths. */
export function sectionalTimes(random: Random, lastSix: number, margin: number): [segment: 'L600' | 'L400' | 'L200', seconds: number][] {
  const l600 = lastSix + margin * 0.17 * (0.3 + random.next() * 0.6) + random.normal(0, 0.15);
  const l400 = l600 * (0.645 + random.next() * 0.02);
  const l200 = l400 * (0.495 + random.next() * 0.025);
  return [
    ['L600', l600],
    ['L400', l400],
    ['L200', l200],
  ];
}
