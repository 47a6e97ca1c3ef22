import type { ColumnMapping, MappingDocument, ValueTransform } from '../../workers/migrate/src/engine/types.ts';
import { LEGACY_CODES, LEGACY_DATE_FORMAT, LEGACY_TIME_FORMAT } from './legacy.ts';

// The schema file for the old system's database (legacy.ts) → the racing database: what an
// operator uploads at SchemaImport, so a wizard run maps every table, code and text date.

const invert = (codes: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(codes).map(([value, code]) => [code, value]));
const map = (codes: Record<string, string>): ValueTransform => ({ kind: 'map', values: invert(codes) });
const YES_NO: ValueTransform = { kind: 'map', values: { Y: 'true', N: 'false' } };
const DATE: ValueTransform = { kind: 'date', format: LEGACY_DATE_FORMAT };
const col = (source: string, dest: string, transform?: ValueTransform): ColumnMapping =>
  transform ? { source, dest, transform } : { source, dest };

export const LEGACY_MAPPING: MappingDocument = {
  version: 1,
  tables: [
    {
      sourceTable: 'venue',
      destTable: 'courses',
      sourceKey: ['venue_id'],
      destKey: 'id',
      naturalKey: ['name'],
      columns: [
        col('venue_name', 'name'),
        col('state_code', 'state'),
        col('country_code', 'country', map(LEGACY_CODES.country)),
        col('category_code', 'category', map(LEGACY_CODES.category)),
      ],
    },
    {
      sourceTable: 'trainer',
      destTable: 'trainers',
      sourceKey: ['trainer_id'],
      destKey: 'id',
      naturalKey: ['name'],
      columns: [col('full_name', 'name'), col('home_state', 'state')],
    },
    {
      sourceTable: 'jockey',
      destTable: 'jockeys',
      sourceKey: ['jockey_id'],
      destKey: 'id',
      naturalKey: ['name'],
      columns: [col('full_name', 'name'), col('home_state', 'state'), col('apprentice_flag', 'apprentice', YES_NO)],
    },
    {
      sourceTable: 'horse',
      destTable: 'horses',
      sourceKey: ['horse_id'],
      destKey: 'id',
      naturalKey: ['name'],
      columns: [
        col('horse_name', 'name'),
        col('country_code', 'country'),
        col('foaled', 'foaling_year'),
        col('sex_code', 'sex', map(LEGACY_CODES.sex)),
        col('sire_name', 'sire'),
        col('dam_name', 'dam'),
      ],
    },
    {
      sourceTable: 'sale_lot',
      destTable: 'sales',
      sourceKey: ['sale_lot_id'],
      destKey: 'id',
      naturalKey: ['horse_id', 'sale_name', 'lot'],
      columns: [
        col('horse_id', 'horse_id'),
        col('sale_name', 'sale_name'),
        col('lot_no', 'lot'),
        col('sale_date', 'sale_date', DATE),
        col('price_aud', 'price'),
        col('vendor', 'vendor'),
        col('purchaser', 'purchaser'),
      ],
    },
    {
      sourceTable: 'race_meeting',
      destTable: 'meetings',
      sourceKey: ['meeting_id'],
      destKey: 'id',
      naturalKey: ['date', 'course_id', 'is_trial'],
      columns: [
        col('meeting_date', 'date', DATE),
        col('venue_id', 'course_id'),
        col('going', 'track_condition'),
        col('going_rating', 'track_rating'),
        col('trial_flag', 'is_trial', YES_NO),
      ],
    },
    {
      sourceTable: 'race_event',
      destTable: 'races',
      sourceKey: ['race_id'],
      destKey: 'id',
      naturalKey: ['meeting_id', 'race_number'],
      columns: [
        col('meeting_id', 'meeting_id'),
        col('race_no', 'race_number'),
        col('race_title', 'name'),
        col('distance_m', 'distance'),
        col('class_desc', 'class'),
        col('discipline_code', 'race_type', map(LEGACY_CODES.discipline)),
        col('going', 'track_condition'),
        col('jump_time', 'start_time', { kind: 'timestamp', format: LEGACY_TIME_FORMAT }),
      ],
    },
    {
      sourceTable: 'race_entry',
      destTable: 'runners',
      sourceKey: ['entry_id'],
      destKey: 'id',
      naturalKey: ['race_id', 'tab_number'],
      columns: [
        col('race_id', 'race_id'),
        col('horse_id', 'horse_id'),
        col('jockey_id', 'jockey_id'),
        col('trainer_id', 'trainer_id'),
        col('tab_no', 'tab_number'),
        col('barrier_no', 'barrier'),
        col('weight_kg', 'weight'),
        col('sp_odds', 'starting_price'),
        col('scratched_flag', 'scratched', YES_NO),
        col('placing', 'finishing_position'),
        col('margin_lengths', 'margin'),
      ],
    },
    {
      sourceTable: 'sectional_split',
      destTable: 'sectional_times',
      sourceKey: ['split_id'],
      destKey: 'id',
      naturalKey: ['runner_id', 'segment'],
      columns: [
        col('entry_id', 'runner_id'),
        col('segment_code', 'segment', { kind: 'map', values: { '600': 'L600', '400': 'L400', '200': 'L200' } }),
        col('split_secs', 'time_seconds'),
      ],
    },
    {
      sourceTable: 'trial_result',
      destTable: 'trial_runs',
      sourceKey: ['trial_result_id'],
      destKey: 'id',
      naturalKey: ['meeting_id', 'heat_number', 'barrier'],
      columns: [
        col('meeting_id', 'meeting_id'),
        col('heat_no', 'heat_number'),
        col('distance_m', 'distance'),
        col('horse_id', 'horse_id'),
        col('jockey_id', 'jockey_id'),
        col('trainer_id', 'trainer_id'),
        col('barrier_no', 'barrier'),
        col('placing', 'finishing_position'),
        col('margin_lengths', 'margin'),
        col('time_secs', 'time_seconds'),
      ],
    },
  ],
};
