import type { HorseCountry, HorseSex } from '#shared/racing/schema.ts';
import { type Day, dayOfDate, isoDate, seasonYear, yearOf } from './calendar.ts';
import type { Region } from './courses.ts';
import { NameBook, horseName, personName, studName } from './names.ts';
import type { People } from './people.ts';
import { Random } from './random.ts';
import type { HorseRow, SaleRow } from './tables.ts';
import { SIRES } from './words.ts';

/** A horse in training, with what the simulation needs to know beyond its row. */
export interface Horse {
  id: number;
  region: Region;
  /** Latent merit on the benchmark scale (a BM64 horse is about 64). */
  ability: number;
  trainerId: number;
  foalingYear: number;
  starts: number;
  wins: number;
  /** First day the horse can be entered again. */
  readyDay: Day;
}

export interface NewHorse {
  horse: Horse;
  row: HorseRow;
  sales: SaleRow[];
}

interface Sale {
  name: string;
  month: number;
  dayOfMonth: number;
  medianPrice: number;
}

const YEARLING_SALES: readonly Sale[] = [
  { name: 'Magic Millions Gold Coast Yearling Sale', month: 1, dayOfMonth: 10, medianPrice: 180_000 },
  { name: 'Inglis Classic Yearling Sale', month: 2, dayOfMonth: 8, medianPrice: 70_000 },
  { name: 'Inglis Premier Yearling Sale', month: 3, dayOfMonth: 1, medianPrice: 80_000 },
  { name: 'Inglis Easter Yearling Sale', month: 4, dayOfMonth: 2, medianPrice: 300_000 },
];
const NEW_ZEALAND_YEARLING_SALE: Sale = {
  name: 'New Zealand Bloodstock Karaka Yearling Sale',
  month: 1,
  dayOfMonth: 26,
  medianPrice: 110_000,
};
const HORSES_IN_TRAINING_SALE: Sale = {
  name: 'Inglis Ready2Race Sale',
  month: 6,
  dayOfMonth: 20,
  medianPrice: 30_000,
};

const COUNTRIES_OF_BIRTH: readonly (readonly [HorseCountry, number])[] = [
  ['AUS', 84],
  ['NZ', 9],
  ['IRE', 2.5],
  ['GB', 2],
  ['USA', 1.2],
  ['FR', 0.8],
  ['JPN', 0.5],
];

/** Who a horse is when it first appears in the data set. */
export interface StartingRecord {
  age: number;
  starts: number;
  wins: number;
  ability: number;
}

/** Foals, names and sells horses; the only place horse ids are assigned. */
export class HorseRegistry {
  private readonly random: Random;
  private readonly names: NameBook;
  private readonly damNames: NameBook;
  private readonly vendors: NameBook;
  private readonly vendorsByCountry: Record<'AUS' | 'NZ', string[]> = { AUS: [], NZ: [] };
  private readonly nextLot = new Map<string, number>();
  private horseCount = 0;
  private saleCount = 0;

  constructor(
    seed: number,
    private readonly people: People,
    private readonly today: Day,
  ) {
    this.random = new Random(seed, 'horses');
    this.names = new NameBook(this.random, horseName);
    this.damNames = new NameBook(new Random(seed, 'dams'), horseName);
    this.vendors = new NameBook(this.random, studName);
  }

  /** A horse that first appears on `day` with a given age and past record. */
  foal(region: Region, day: Day, record: StartingRecord): NewHorse {
    const random = this.random;
    const id = ++this.horseCount;
    const country: HorseCountry = region === 'NZ' ? (random.chance(0.9) ? 'NZ' : 'AUS') : random.weighted(COUNTRIES_OF_BIRTH);
    const foalingYear = seasonYear(day) - record.age;
    const roster = this.people.trainersByRegion[region];
    const trainerId = roster.ids[random.weightedIndex(roster.weights)] ?? 0;
    const { ability, starts, wins } = record;
    const horse: Horse = { id, region, ability, trainerId, foalingYear, starts, wins, readyDay: day };
    const row: HorseRow = {
      id,
      name: this.names.next(),
      country,
      foalingYear,
      sex: this.sex(foalingYear),
      sire: random.pick(SIRES),
      dam: this.damNames.next(),
    };
    return { horse, row, sales: this.sales(horse, country, day) };
  }

  private sex(foalingYear: number): HorseSex {
    const age = seasonYear(this.today) - foalingYear;
    const female = this.random.chance(0.38);
    if (female) return age <= 3 ? 'filly' : 'mare';
    if (this.random.chance(0.78)) return 'gelding';
    return age <= 3 ? 'colt' : 'horse';
  }

  private sales(horse: Horse, country: HorseCountry, firstSeen: Day): SaleRow[] {
    const random = this.random;
    const sales: SaleRow[] = [];
    const yearlingYear = horse.foalingYear + 2;
    if ((country === 'AUS' || country === 'NZ') && random.chance(0.38)) {
      const sale = country === 'NZ' ? NEW_ZEALAND_YEARLING_SALE : random.pick(YEARLING_SALES);
      const saleDay = dayOfDate(yearlingYear, sale.month, sale.dayOfMonth) + random.int(0, 3);
      if (saleDay < firstSeen) sales.push(this.sell(horse, sale, saleDay, country === 'NZ' ? 'NZ' : 'AUS'));
    }
    // A few change hands again as horses in training before they are seen here.
    if (random.chance(0.06)) {
      const saleDay = dayOfDate(yearOf(firstSeen) - 1, HORSES_IN_TRAINING_SALE.month, HORSES_IN_TRAINING_SALE.dayOfMonth);
      if (saleDay > dayOfDate(yearlingYear, 6, 1)) sales.push(this.sell(horse, HORSES_IN_TRAINING_SALE, saleDay, 'AUS'));
    }
    return sales;
  }

  private sell(horse: Horse, sale: Sale, saleDay: Day, vendorCountry: 'AUS' | 'NZ'): SaleRow {
    const random = this.random;
    const catalogue = `${sale.name} ${yearOf(saleDay)}`;
    const lot = (this.nextLot.get(catalogue) ?? 0) + random.int(1, 4);
    this.nextLot.set(catalogue, lot);
    // Log-normal prices, with better horses from dearer yearlings.
    const price = sale.medianPrice * Math.exp(random.normal(0, 0.85) + (horse.ability - 60) * 0.02);
    return {
      id: ++this.saleCount,
      horseId: horse.id,
      saleName: sale.name,
      lot,
      saleDate: isoDate(saleDay),
      price: Math.max(5_000, Math.round(price / 1_000) * 1_000),
      vendor: this.vendor(vendorCountry),
      purchaser: this.purchaser(horse),
    };
  }

  private vendor(country: 'AUS' | 'NZ'): string {
    const vendors = this.vendorsByCountry[country];
    if (vendors.length < (country === 'AUS' ? 40 : 12) || this.random.chance(0.02)) {
      const vendor = this.vendors.next();
      vendors.push(vendor);
      return vendor;
    }
    return this.random.pick(vendors);
  }

  private purchaser(horse: Horse): string {
    const random = this.random;
    const shape = random.next();
    if (shape < 0.45) return this.people.trainerNames.get(horse.trainerId) ?? personName(random);
    const surname = personName(random).split(' ')[1] ?? 'Smith';
    if (shape < 0.8) return `${surname} Bloodstock`;
    if (shape < 0.92) return `${surname} Racing`;
    return `${personName(random)} & Partners`;
  }
}
