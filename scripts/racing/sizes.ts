export type RacingSize = 'tiny' | 'demo' | 'bench';

export const RACING_SIZES: readonly RacingSize[] = ['tiny', 'demo', 'bench'];

export function isRacingSize(value: string): value is RacingSize {
  return RACING_SIZES.some((size) => size === value);
}

export interface SizeProfile {
  /** Days of results before `today`. */
  historyDays: number;
  /** Share of national activity (1 ≈ 2,600 meetings, 19,500 races a year). */
  scale: number;
}

export const SIZE_PROFILES: Record<RacingSize, SizeProfile> = {
  tiny: { historyDays: 28, scale: 0.2 },
  demo: { historyDays: 183, scale: 0.5 },
  bench: { historyDays: 5 * 365 + 2, scale: 1 },
};

/** Acceptances (fields without results) exist for today and the next three days. */
export const ACCEPTANCE_DAYS = 4;

export const DEFAULT_SEED = 1;
