import type { JockeyRow, TrainerRow } from './tables.ts';
import { REGIONS, type Region } from './courses.ts';
import { NameBook, personName } from './names.ts';
import { Random } from './random.ts';

/** Licensed people per region at national scale. */
const TRAINERS_PER_REGION: Record<Region, number> = {
  NSW: 260,
  VIC: 280,
  QLD: 230,
  SA: 90,
  WA: 110,
  TAS: 45,
  NT: 15,
  NZ: 130,
};
const JOCKEYS_PER_REGION: Record<Region, number> = {
  NSW: 110,
  VIC: 110,
  QLD: 95,
  SA: 45,
  WA: 55,
  TAS: 25,
  NT: 12,
  NZ: 70,
};
const MINIMUM_TRAINERS = 8;
const MINIMUM_JOCKEYS = 20;
const APPRENTICE_SHARE = 0.2;

/** People of one region with how much work each gets (a few big stables, many small ones). */
export interface RegionRoster {
  ids: number[];
  names: string[];
  weights: number[];
}

export interface People {
  trainers: TrainerRow[];
  jockeys: JockeyRow[];
  trainersByRegion: Record<Region, RegionRoster>;
  jockeysByRegion: Record<Region, RegionRoster>;
  trainerNames: Map<number, string>;
}

function emptyRosters(): Record<Region, RegionRoster> {
  const roster = (): RegionRoster => ({ ids: [], names: [], weights: [] });
  return { NSW: roster(), VIC: roster(), QLD: roster(), SA: roster(), WA: roster(), TAS: roster(), NT: roster(), NZ: roster() };
}

export function licensePeople(seed: number, scale: number): People {
  const random = new Random(seed, 'people');
  const trainerNames = new NameBook(random, personName);
  const jockeyNames = new NameBook(random, personName);
  const trainers: TrainerRow[] = [];
  const jockeys: JockeyRow[] = [];
  const trainersByRegion = emptyRosters();
  const jockeysByRegion = emptyRosters();
  for (const region of REGIONS) {
    const trainerCount = Math.max(MINIMUM_TRAINERS, Math.round(TRAINERS_PER_REGION[region] * scale));
    for (let rank = 0; rank < trainerCount; rank++) {
      const trainer: TrainerRow = { id: trainers.length + 1, name: trainerNames.next(), state: region };
      trainers.push(trainer);
      const roster = trainersByRegion[region];
      roster.ids.push(trainer.id);
      roster.names.push(trainer.name);
      roster.weights.push(1 / Math.pow(rank + 3, 1.1));
    }
    const jockeyCount = Math.max(MINIMUM_JOCKEYS, Math.round(JOCKEYS_PER_REGION[region] * scale));
    for (let rank = 0; rank < jockeyCount; rank++) {
      // Apprentices are the juniors, so they rank low for rides.
      const apprentice = rank > jockeyCount * 0.3 && random.chance(APPRENTICE_SHARE / 0.7);
      const jockey: JockeyRow = { id: jockeys.length + 1, name: jockeyNames.next(), state: region, apprentice };
      jockeys.push(jockey);
      const roster = jockeysByRegion[region];
      roster.ids.push(jockey.id);
      roster.names.push(jockey.name);
      roster.weights.push(1 / Math.pow(rank + 6, 0.9));
    }
  }
  return {
    trainers,
    jockeys,
    trainersByRegion,
    jockeysByRegion,
    trainerNames: new Map(trainers.map((t) => [t.id, t.name])),
  };
}
