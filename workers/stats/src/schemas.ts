import { z } from '@hono/zod-openapi';
import { isCalendarDate } from '#shared/dates.ts';
import { text } from '#shared/text.ts';

/** A calendar date YYYY-MM-DD that exists (2026-02-30 does not). */
export const isoDate = z
  .string()
  .max(10)
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date in the form YYYY-MM-DD')
  .refine(isCalendarDate, 'is not a calendar date')
  .openapi({ example: '2026-11-14', format: 'date' });

/** A course id in the query: digits only, within integer range. */
export const courseIdParam = z
  .string()
  .max(9, 'must be a positive integer')
  .regex(/^[1-9]\d*$/, 'must be a positive integer')
  .transform(Number)
  .openapi({ type: 'integer', example: 36 });

const count = z.number().int().min(0);
const pct = z.number().min(0).max(100);

export const wpsSchema = z.object({ wins: count, win_pct: pct, places: count, place_pct: pct, starts: count }).openapi('WPS');

export const PRICE_BANDS = ['1.00-2.00', '2.01-3.50', '3.51-6.00', '6.01-11.00', '11.01-21.00', '21.01+'] as const;

export const priceBandIvSchema = z
  .object({
    band: text().max(20).openapi({ example: '3.51-6.00' }),
    trainer_wps: wpsSchema.describe("the person's own WPS in the band (jockeys too: see the README)"),
    baseline_wps: wpsSchema.describe('every runner in the band in the same window across the database'),
    iv: z.number().min(0).nullable().describe('win% in the band ÷ baseline win% in the band; null when undefined'),
  })
  .openapi('PriceBandIv');

export const statsRecordSchema = z
  .object({
    id: z.number().int(),
    name: text().max(200),
    performance_365d: z.object({ wins: count, starts: count, win_pct: pct }),
    wins_30d: count,
    avg_per_meeting: z.number().min(0).describe('wins ÷ distinct meetings attended in the 365-day window'),
    last_win_date: isoDate.nullable(),
    avg_finishing_pos: z.number().min(0).nullable(),
    top_horses: z.array(z.object({ name: text().max(200), win_pct: pct })).max(5),
    price_band_ivs: z.array(priceBandIvSchema).max(PRICE_BANDS.length),
  })
  .openapi('StatsRecord');
export type StatsRecord = z.infer<typeof statsRecordSchema>;

export const meetingSchema = z.object({ date: isoDate, course: z.string(), courseId: z.number().int() }).openapi('Meeting');
export type Meeting = z.infer<typeof meetingSchema>;

export const trainersWrapperSchema = z
  .object({ status: z.literal('success'), meeting: meetingSchema, trainers: z.array(statsRecordSchema) })
  .openapi('TrainerStatsResponse');
export const jockeysWrapperSchema = z
  .object({ status: z.literal('success'), meeting: meetingSchema, jockeys: z.array(statsRecordSchema) })
  .openapi('JockeyStatsResponse');
export const meetingWrapperSchema = z
  .object({
    status: z.literal('success'),
    meeting: meetingSchema,
    trainers: z.array(statsRecordSchema),
    jockeys: z.array(statsRecordSchema),
  })
  .openapi('MeetingStatsResponse');

export const savedPayloadSchema = z
  .object({
    date: isoDate,
    course_id: z.number().int().positive(),
    trainer_stats: z.array(statsRecordSchema).max(500),
    jockey_stats: z.array(statsRecordSchema).max(500),
  })
  .openapi('SavedStatsPayload');
export type SavedPayload = z.infer<typeof savedPayloadSchema>;

export const notFoundStatusSchema = z.object({ status: z.literal('not_found') }).openapi('NotFoundStatus');
