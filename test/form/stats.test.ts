import { describe, expect, it } from 'vitest';
import type { Run } from '../../workers/form/src/runs';
import { computeStats, distanceRange, stateOfTrack } from '../../workers/form/src/stats';

let raceId = 0;
/** A run with everything but what a test cares about filled with neutral values. */
function run(fields: Partial<Run> & Pick<Run, 'date' | 'finishing_position'>): Run {
  raceId += 1;
  return {
    race_id: raceId,
    meeting_id: raceId,
    course: 'Flemington',
    country: 'AUS',
    race_number: 1,
    race_name: 'Handicap',
    distance: 1200,
    class_level: 'BM70',
    race_type: 'Flat',
    track_condition: 'Good 4',
    horse_id: 1,
    horse: 'Test Horse',
    jockey_id: 1,
    jockey: 'A Rider',
    trainer_id: 1,
    trainer: 'T Trainer',
    tab_number: 1,
    barrier: 1,
    weight: 56,
    starting_price: 5,
    margin: 0,
    field_size: 10,
    last_600: null,
    ...fields,
  };
}

// Seven runs with a result and one acceptance, worked through by hand below.
const FORM: Run[] = [
  run({
    date: '2026-01-01',
    finishing_position: 1,
    course: 'Flemington',
    distance: 1200,
    class_level: 'Class 1',
    track_condition: 'Good 4',
    jockey: 'A Rider',
  }),
  run({
    date: '2026-01-15',
    finishing_position: 1,
    course: 'Flemington',
    distance: 1400,
    class_level: 'Class 1',
    track_condition: 'Soft 6',
    jockey: 'A Rider',
  }),
  run({
    date: '2026-02-01',
    finishing_position: 4,
    course: 'Ellerslie',
    country: 'NZ',
    distance: 1200,
    class_level: 'BM64',
    track_condition: 'Good 3',
    jockey: 'B Rider',
  }),
  run({
    date: '2026-02-20',
    finishing_position: 2,
    course: 'Randwick',
    distance: 1200,
    class_level: 'BM64',
    track_condition: 'Heavy 8',
    jockey: 'B Rider',
  }),
  run({
    date: '2026-03-05',
    finishing_position: 12,
    course: 'Randwick',
    distance: 1600,
    class_level: 'BM70',
    track_condition: 'Good 4',
    jockey: 'A Rider',
  }),
  run({
    date: '2026-03-20',
    finishing_position: 1,
    course: 'Randwick',
    distance: 1100,
    class_level: 'BM70',
    track_condition: 'Good 4',
    jockey: 'A Rider',
  }),
  run({
    date: '2026-04-02',
    finishing_position: 1,
    course: 'Flemington',
    distance: 1200,
    class_level: 'BM70',
    track_condition: 'Soft 5',
    jockey: 'A Rider',
  }),
  run({
    date: '2026-04-20',
    finishing_position: null,
    course: 'Caulfield',
    distance: 2400,
    class_level: 'Group 1',
    track_condition: 'Good 4',
  }),
];

const rec = (starts: number, wins: number, seconds: number, thirds: number, win_pct: number, place_pct: number) => ({
  starts,
  wins,
  seconds,
  thirds,
  win_pct,
  place_pct,
});

describe('form statistics, against hand-computed figures', () => {
  // Shuffled, so the function has to order the runs itself.
  const stats = computeStats([FORM[3]!, FORM[7]!, FORM[0]!, FORM[6]!, FORM[2]!, FORM[5]!, FORM[1]!, FORM[4]!]);

  it('career: runs with a result only (the acceptance is left out)', () => {
    // 7 starts: wins on 1 Jan, 15 Jan, 20 Mar, 2 Apr; second on 20 Feb. 4/7 = 57.1 %, 5/7 = 71.4 %.
    expect(stats.career).toEqual(rec(7, 4, 1, 0, 57.1, 71.4));
  });

  it('by_country', () => {
    expect(stats.by_country).toEqual([
      { key: 'AUS', ...rec(6, 4, 1, 0, 66.7, 83.3) },
      { key: 'NZ', ...rec(1, 0, 0, 0, 0, 0) },
    ]);
  });

  it('by_jockey and by_trainer', () => {
    expect(stats.by_jockey).toEqual([
      { key: 'A Rider', ...rec(5, 4, 0, 0, 80, 80) },
      { key: 'B Rider', ...rec(2, 0, 1, 0, 0, 50) },
    ]);
    expect(stats.by_trainer).toEqual([{ key: 'T Trainer', ...rec(7, 4, 1, 0, 57.1, 71.4) }]);
  });

  it('by_distance, in range order', () => {
    // ≤1200: 1200 W, 1200 4th, 1200 2nd, 1100 W, 1200 W; 1400 W; 1600 12th.
    expect(stats.by_distance).toEqual([
      { key: '≤1200 m', ...rec(5, 3, 1, 0, 60, 80) },
      { key: '1201–1400 m', ...rec(1, 1, 0, 0, 100, 100) },
      { key: '1401–1600 m', ...rec(1, 0, 0, 0, 0, 0) },
    ]);
  });

  it('by_track, most starts first, then by name', () => {
    expect(stats.by_track).toEqual([
      { key: 'Flemington', ...rec(3, 3, 0, 0, 100, 100) },
      { key: 'Randwick', ...rec(3, 1, 1, 0, 33.3, 66.7) },
      { key: 'Ellerslie', ...rec(1, 0, 0, 0, 0, 0) },
    ]);
  });

  it('by_class', () => {
    expect(stats.by_class).toEqual([
      { key: 'BM70', ...rec(3, 2, 0, 0, 66.7, 66.7) },
      { key: 'BM64', ...rec(2, 0, 1, 0, 0, 50) },
      { key: 'Class 1', ...rec(2, 2, 0, 0, 100, 100) },
    ]);
  });

  it('by_sot groups by the state word, whatever the rating', () => {
    expect(stats.by_sot).toEqual([
      { key: 'Good', ...rec(4, 2, 0, 0, 50, 50) },
      { key: 'Soft', ...rec(2, 2, 0, 0, 100, 100) },
      { key: 'Heavy', ...rec(1, 0, 1, 0, 0, 100) },
    ]);
  });

  it('last5: latest first, tenth or worse as 0', () => {
    expect(stats.last5).toEqual({ figures: '11024', positions: [1, 1, 12, 2, 4], record: rec(5, 2, 1, 0, 40, 60) });
  });

  it('preferred_range: the only range with 3 starts', () => {
    expect(stats.preferred_range).toEqual({ key: '≤1200 m', ...rec(5, 3, 1, 0, 60, 80), min_starts: 3 });
  });

  it('consecutive_wins: current and longest', () => {
    // Oldest first: W W 4 2 12 W W.
    expect(stats.consecutive_wins).toEqual({ current: 2, longest: 2 });
  });
});

describe('form statistics: edge cases', () => {
  it('a longest streak in the past, a current one of one', () => {
    const runs = [1, 1, 1, 5, 1].map((pos, i) => run({ date: `2026-05-0${i + 1}`, finishing_position: pos }));
    expect(computeStats(runs).consecutive_wins).toEqual({ current: 1, longest: 3 });
    const lost = [...runs, run({ date: '2026-05-09', finishing_position: 3 })];
    expect(computeStats(lost).consecutive_wins).toEqual({ current: 0, longest: 3 });
  });

  it('orders same-day runs by race number', () => {
    const runs = [
      run({ date: '2026-06-01', race_number: 7, finishing_position: 1 }),
      run({ date: '2026-06-01', race_number: 2, finishing_position: 3 }),
    ];
    expect(computeStats(runs).last5.figures).toBe('13');
  });

  it('a dead heat for first is a win for each horse in it', () => {
    const runs = [
      run({ date: '2026-06-01', finishing_position: 1, margin: 0 }),
      run({ date: '2026-06-08', finishing_position: 1, margin: 0 }),
    ];
    expect(computeStats(runs).career).toEqual(rec(2, 2, 0, 0, 100, 100));
  });

  it('preferred_range ties: place % decides, then more starts', () => {
    const at = (distance: number, pos: number[]) =>
      pos.map((p, i) => run({ date: `2026-07-${String(10 + i)}`, distance, finishing_position: p }));
    // ≤1200: 1/3 wins, 2/3 placed; 1401–1600: 1/3 wins, 1/3 placed; 2001–2400: 2/2 wins but too few starts.
    const placeDecides = computeStats([...at(1000, [1, 2, 7]), ...at(1500, [1, 6, 7]), ...at(2200, [1, 1])]);
    expect(placeDecides.preferred_range?.key).toBe('≤1200 m');
    // ≤1200: 1 win in 3; 1601–2000: 2 wins in 6, no places either: same percentages, more starts wins.
    const startsDecide = computeStats([...at(1200, [1, 5, 6]), ...at(1800, [1, 1, 5, 6, 7, 8])]);
    expect(startsDecide.preferred_range).toMatchObject({ key: '1601–2000 m', starts: 6, win_pct: 33.3 });
  });

  it('no runs with a result: zero records, no preferred range, no streak', () => {
    const stats = computeStats([run({ date: '2026-08-01', finishing_position: null })]);
    expect(stats.career).toEqual(rec(0, 0, 0, 0, 0, 0));
    expect(stats.by_country).toEqual([]);
    expect(stats.last5).toEqual({ figures: '', positions: [], record: rec(0, 0, 0, 0, 0, 0) });
    expect(stats.preferred_range).toBeNull();
    expect(stats.consecutive_wins).toEqual({ current: 0, longest: 0 });
  });

  it('range and state-of-track boundaries', () => {
    expect([1200, 1201, 1400, 1401, 1600, 1601, 2000, 2001, 2400, 2401, 3200].map(distanceRange)).toEqual([
      '≤1200 m',
      '1201–1400 m',
      '1201–1400 m',
      '1401–1600 m',
      '1401–1600 m',
      '1601–2000 m',
      '1601–2000 m',
      '2001–2400 m',
      '2001–2400 m',
      '≥2401 m',
      '≥2401 m',
    ]);
    expect(['Good 4', 'Heavy 10', 'Firm 1', ''].map(stateOfTrack)).toEqual(['Good', 'Heavy', 'Firm', 'Unknown']);
  });
});
