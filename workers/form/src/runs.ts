/** One start as every form page shows it, whoever it is listed for (horse, jockey or trainer). */
export interface Run {
  race_id: number;
  date: string;
  meeting_id: number;
  course: string;
  country: string;
  race_number: number;
  race_name: string;
  /** Metres. */
  distance: number;
  class_level: string;
  race_type: string;
  /** e.g. "Good 4". */
  track_condition: string;
  horse_id: number;
  horse: string;
  jockey_id: number | null;
  jockey: string | null;
  trainer_id: number;
  trainer: string;
  tab_number: number;
  barrier: number;
  weight: number;
  starting_price: number | null;
  /** Null until the race is run. */
  finishing_position: number | null;
  margin: number | null;
  /** Starters (scratchings excluded). */
  field_size: number;
  /** Time over the last 600 m, when recorded. */
  last_600: number | null;
}

/** The page-level cap the spec sets on runs. */
export const MAX_RUNS = 200;

/** Runs from the database come as JSON; numbers may arrive as strings (numeric columns). */
export function normaliseRun(raw: Record<string, unknown>): Run {
  const num = (value: unknown) => (value === null || value === undefined || value === '' ? null : Number(value));
  const str = (value: unknown) => (value === null || value === undefined ? null : String(value));
  return {
    race_id: Number(raw.race_id),
    date: String(raw.date),
    meeting_id: Number(raw.meeting_id),
    course: String(raw.course),
    country: String(raw.country),
    race_number: Number(raw.race_number),
    race_name: String(raw.race_name),
    distance: Number(raw.distance),
    class_level: String(raw.class_level),
    race_type: String(raw.race_type),
    track_condition: String(raw.track_condition),
    horse_id: Number(raw.horse_id),
    horse: String(raw.horse),
    jockey_id: num(raw.jockey_id),
    jockey: str(raw.jockey),
    trainer_id: Number(raw.trainer_id),
    trainer: String(raw.trainer),
    tab_number: Number(raw.tab_number),
    barrier: Number(raw.barrier),
    weight: Number(raw.weight),
    starting_price: num(raw.starting_price),
    finishing_position: num(raw.finishing_position),
    margin: num(raw.margin),
    field_size: Number(raw.field_size),
    last_600: num(raw.last_600),
  };
}
