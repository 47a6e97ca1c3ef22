import type { AustralianState, CourseCategory, CourseCountry } from '#shared/racing/schema.ts';
import type { TimeZone } from './calendar.ts';

/** Horses, trainers and jockeys are based in a region: a state (ACT racing draws on NSW) or NZ. */
export type Region = 'NSW' | 'VIC' | 'QLD' | 'SA' | 'WA' | 'TAS' | 'NT' | 'NZ';
export const REGIONS: readonly Region[] = ['NSW', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT', 'NZ'];

export interface CourseProfile {
  name: string;
  state: AustralianState | null;
  country: CourseCountry;
  category: CourseCategory;
  region: Region;
  zone: TimeZone;
  /** Relative number of meetings a year. */
  meetingsWeight: number;
}

type CourseEntry = readonly [name: string, category: CourseCategory, meetingsWeight: number];

const M = 'Metropolitan';
const P = 'Provincial';
const C = 'Country';

const AUSTRALIAN_COURSES: Record<AustralianState, readonly CourseEntry[]> = {
  NSW: [
    ['Randwick', M, 20],
    ['Rosehill Gardens', M, 22],
    ['Canterbury Park', M, 18],
    ['Warwick Farm', M, 18],
    ['Newcastle', P, 35],
    ['Kembla Grange', P, 30],
    ['Gosford', P, 25],
    ['Wyong', P, 25],
    ['Hawkesbury', P, 25],
    ['Scone', C, 12],
    ['Muswellbrook', C, 10],
    ['Tamworth', C, 15],
    ['Dubbo', C, 15],
    ['Wagga', C, 15],
    ['Grafton', C, 15],
    ['Bathurst', C, 12],
    ['Orange', C, 10],
    ['Port Macquarie', C, 15],
    ['Goulburn', C, 12],
    ['Queanbeyan', C, 15],
    ['Taree', C, 12],
    ['Coffs Harbour', C, 15],
    ['Lismore', C, 12],
    ['Ballina', C, 10],
    ['Mudgee', C, 10],
    ['Moruya', C, 10],
    ['Nowra', C, 10],
    ['Albury', C, 12],
    ['Armidale', C, 8],
    ['Cessnock', C, 8],
    ['Kempsey', C, 8],
    ['Inverell', C, 6],
    ['Gunnedah', C, 6],
    ['Narromine', C, 6],
  ],
  ACT: [['Canberra', P, 25]],
  VIC: [
    ['Flemington', M, 20],
    ['Caulfield', M, 22],
    ['Moonee Valley', M, 24],
    ['Sandown Hillside', M, 18],
    ['Geelong', P, 25],
    ['Ballarat', P, 30],
    ['Bendigo', P, 30],
    ['Cranbourne', P, 35],
    ['Pakenham', P, 40],
    ['Mornington', P, 25],
    ['Sale', P, 20],
    ['Kilmore', P, 20],
    ['Echuca', C, 15],
    ['Swan Hill', C, 12],
    ['Warrnambool', C, 15],
    ['Hamilton', C, 10],
    ['Wangaratta', C, 12],
    ['Benalla', C, 10],
    ['Seymour', C, 20],
    ['Stony Creek', C, 12],
    ['Moe', C, 18],
    ['Kyneton', C, 15],
    ['Werribee', C, 12],
    ['Donald', C, 6],
    ['Horsham', C, 12],
    ['Ararat', C, 10],
    ['Colac', C, 10],
    ['Terang', C, 6],
    ['Mildura', C, 10],
    ['Bairnsdale', C, 10],
    ['Wodonga', C, 12],
    ['Yarra Valley', C, 15],
    ['Tatura', C, 10],
    ['Stawell', C, 6],
  ],
  QLD: [
    ['Eagle Farm', M, 25],
    ['Doomben', M, 30],
    ['Gold Coast', P, 45],
    ['Sunshine Coast', P, 45],
    ['Ipswich', P, 30],
    ['Toowoomba', P, 30],
    ['Rockhampton', C, 35],
    ['Mackay', C, 25],
    ['Townsville', C, 25],
    ['Cairns', C, 20],
    ['Beaudesert', C, 12],
    ['Dalby', C, 10],
    ['Kilcoy', C, 10],
    ['Gatton', C, 12],
    ['Roma', C, 8],
    ['Bundaberg', C, 10],
    ['Emerald', C, 8],
    ['Chinchilla', C, 5],
    ['Warwick', C, 6],
    ['Goondiwindi', C, 5],
    ['Longreach', C, 4],
    ['Mount Isa', C, 5],
  ],
  SA: [
    ['Morphettville', M, 40],
    ['Morphettville Parks', M, 10],
    ['Murray Bridge', P, 25],
    ['Gawler', P, 20],
    ['Balaklava', P, 15],
    ['Port Augusta', C, 10],
    ['Mount Gambier', C, 12],
    ['Strathalbyn', C, 10],
    ['Oakbank', C, 5],
    ['Port Lincoln', C, 5],
    ['Naracoorte', C, 6],
    ['Bordertown', C, 5],
    ['Clare', C, 5],
  ],
  WA: [
    ['Ascot', M, 35],
    ['Belmont Park', M, 25],
    ['Pinjarra', P, 30],
    ['Bunbury', P, 30],
    ['Northam', P, 20],
    ['Kalgoorlie', C, 10],
    ['Geraldton', C, 10],
    ['York', C, 10],
    ['Albany', C, 8],
    ['Narrogin', C, 12],
    ['Esperance', C, 4],
    ['Broome', C, 5],
    ['Carnarvon', C, 4],
    ['Port Hedland', C, 4],
  ],
  TAS: [
    ['Launceston', P, 35],
    ['Hobart', P, 30],
    ['Devonport', C, 15],
    ['Longford', C, 4],
  ],
  NT: [
    ['Darwin', P, 25],
    ['Alice Springs', C, 12],
  ],
};

const NEW_ZEALAND_COURSES: readonly CourseEntry[] = [
  ['Ellerslie', M, 15],
  ['Trentham', M, 12],
  ['Riccarton Park', M, 15],
  ['Te Rapa', P, 15],
  ['Hastings', P, 10],
  ['Otaki', P, 10],
  ['Pukekohe Park', P, 8],
  ['Awapuni', P, 12],
  ['Matamata', C, 12],
  ['Ruakaka', C, 12],
  ['Tauranga', C, 10],
  ['Wanganui', C, 8],
  ['Wingatui', C, 8],
];

const STATE_ZONES: Record<AustralianState, TimeZone> = {
  NSW: 'AEST-DST',
  ACT: 'AEST-DST',
  VIC: 'AEST-DST',
  TAS: 'AEST-DST',
  QLD: 'AEST',
  SA: 'ACST-DST',
  NT: 'ACST',
  WA: 'AWST',
};

const STATES: readonly AustralianState[] = ['NSW', 'ACT', 'VIC', 'QLD', 'SA', 'WA', 'TAS', 'NT'];

function australianCourses(): CourseProfile[] {
  return STATES.flatMap((state) => {
    const region: Region = state === 'ACT' ? 'NSW' : state;
    return AUSTRALIAN_COURSES[state].map(([name, category, meetingsWeight]) => ({
      name,
      state,
      country: 'AUS' as const,
      category,
      region,
      zone: STATE_ZONES[state],
      meetingsWeight,
    }));
  });
}

export const COURSE_PROFILES: readonly CourseProfile[] = [
  ...australianCourses(),
  ...NEW_ZEALAND_COURSES.map(([name, category, meetingsWeight]) => ({
    name,
    state: null,
    country: 'NZ' as const,
    category,
    region: 'NZ' as const,
    zone: 'NZST-DST' as const,
    meetingsWeight,
  })),
];
