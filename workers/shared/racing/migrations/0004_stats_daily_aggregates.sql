CREATE TABLE "meeting_stats_days" (
	"date" date PRIMARY KEY NOT NULL,
	"starts_1" integer DEFAULT 0 NOT NULL,
	"starts_2" integer DEFAULT 0 NOT NULL,
	"starts_3" integer DEFAULT 0 NOT NULL,
	"starts_4" integer DEFAULT 0 NOT NULL,
	"starts_5" integer DEFAULT 0 NOT NULL,
	"starts_6" integer DEFAULT 0 NOT NULL,
	"wins_1" integer DEFAULT 0 NOT NULL,
	"wins_2" integer DEFAULT 0 NOT NULL,
	"wins_3" integer DEFAULT 0 NOT NULL,
	"wins_4" integer DEFAULT 0 NOT NULL,
	"wins_5" integer DEFAULT 0 NOT NULL,
	"wins_6" integer DEFAULT 0 NOT NULL,
	"places_1" integer DEFAULT 0 NOT NULL,
	"places_2" integer DEFAULT 0 NOT NULL,
	"places_3" integer DEFAULT 0 NOT NULL,
	"places_4" integer DEFAULT 0 NOT NULL,
	"places_5" integer DEFAULT 0 NOT NULL,
	"places_6" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "meeting_stats_person_days" (
	"role" text NOT NULL,
	"person_id" integer NOT NULL,
	"date" date NOT NULL,
	"starts" integer NOT NULL,
	"wins" integer NOT NULL,
	"meetings" integer NOT NULL,
	"position_sum" integer NOT NULL,
	"starts_1" integer DEFAULT 0 NOT NULL,
	"starts_2" integer DEFAULT 0 NOT NULL,
	"starts_3" integer DEFAULT 0 NOT NULL,
	"starts_4" integer DEFAULT 0 NOT NULL,
	"starts_5" integer DEFAULT 0 NOT NULL,
	"starts_6" integer DEFAULT 0 NOT NULL,
	"wins_1" integer DEFAULT 0 NOT NULL,
	"wins_2" integer DEFAULT 0 NOT NULL,
	"wins_3" integer DEFAULT 0 NOT NULL,
	"wins_4" integer DEFAULT 0 NOT NULL,
	"wins_5" integer DEFAULT 0 NOT NULL,
	"wins_6" integer DEFAULT 0 NOT NULL,
	"places_1" integer DEFAULT 0 NOT NULL,
	"places_2" integer DEFAULT 0 NOT NULL,
	"places_3" integer DEFAULT 0 NOT NULL,
	"places_4" integer DEFAULT 0 NOT NULL,
	"places_5" integer DEFAULT 0 NOT NULL,
	"places_6" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "meeting_stats_person_days_role_person_id_date_pk" PRIMARY KEY("role","person_id","date")
);
--> statement-breakpoint
CREATE TABLE "meeting_stats_person_horses" (
	"role" text NOT NULL,
	"person_id" integer NOT NULL,
	"date" date NOT NULL,
	"horse_id" integer NOT NULL,
	"starts" integer NOT NULL,
	"wins" integer NOT NULL,
	CONSTRAINT "meeting_stats_person_horses_role_person_id_date_horse_id_pk" PRIMARY KEY("role","person_id","date","horse_id")
);
--> statement-breakpoint
DROP TABLE IF EXISTS "meeting_stats_baselines" CASCADE;--> statement-breakpoint
CREATE INDEX "meeting_stats_person_days_date_idx" ON "meeting_stats_person_days" USING btree ("date");--> statement-breakpoint
CREATE INDEX "meeting_stats_person_horses_date_idx" ON "meeting_stats_person_horses" USING btree ("date");--> statement-breakpoint
-- The daily aggregates replace the stored baselines of 0003 (a baseline is now a year of meeting_stats_days summed).
DROP TRIGGER IF EXISTS "runners_insert_forgets_baselines" ON "runners";
--> statement-breakpoint
DROP TRIGGER IF EXISTS "runners_update_forgets_baselines" ON "runners";
--> statement-breakpoint
DROP TRIGGER IF EXISTS "runners_delete_forgets_baselines" ON "runners";
--> statement-breakpoint
DROP TRIGGER IF EXISTS "meetings_update_forgets_baselines" ON "meetings";
--> statement-breakpoint
DROP TRIGGER IF EXISTS "meetings_delete_forgets_baselines" ON "meetings";
--> statement-breakpoint
DROP FUNCTION IF EXISTS "meeting_stats_baselines_forget_runners"();
--> statement-breakpoint
DROP FUNCTION IF EXISTS "meeting_stats_baselines_forget_meetings"();
--> statement-breakpoint
-- Recomputes the daily aggregates of the given dates from the racing tables: every start of a date
-- (a non-scratched runner with a finishing position at a race meeting), its price band by starting
-- price, and whether it placed on TAB terms by its race's starters (8+ pay 3, 5-7 pay 2, else none).
CREATE OR REPLACE FUNCTION "meeting_stats_refresh"(p_dates date[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM "meeting_stats_person_horses" WHERE "date" = ANY (p_dates);
  DELETE FROM "meeting_stats_person_days" WHERE "date" = ANY (p_dates);
  DELETE FROM "meeting_stats_days" WHERE "date" = ANY (p_dates);
  WITH starts AS (
    SELECT r."trainer_id", r."jockey_id", r."horse_id", m."id" AS meeting_id, m."date", r."finishing_position" AS pos,
      CASE
        WHEN r."starting_price" IS NULL THEN NULL
        WHEN r."starting_price" <= 2.00 THEN 1 WHEN r."starting_price" <= 3.50 THEN 2 WHEN r."starting_price" <= 6.00 THEN 3
        WHEN r."starting_price" <= 11.00 THEN 4 WHEN r."starting_price" <= 21.00 THEN 5 ELSE 6
      END AS band,
      count(*) OVER (PARTITION BY r."race_id") AS starters
    FROM "meetings" m JOIN "races" ra ON ra."meeting_id" = m."id" JOIN "runners" r ON r."race_id" = ra."id"
    WHERE m."date" = ANY (p_dates) AND NOT m."is_trial" AND NOT r."scratched" AND r."finishing_position" IS NOT NULL
  ),
  scored AS (
    SELECT s.*, s.pos = 1 AS won, s.pos = 1 OR s.pos <= CASE WHEN s.starters >= 8 THEN 3 WHEN s.starters >= 5 THEN 2 ELSE 0 END AS placed
    FROM starts s
  ),
  people AS (
    SELECT 'trainer' AS role, s."trainer_id" AS person_id, s.* FROM scored s
    UNION ALL
    SELECT 'jockey', s."jockey_id", s.* FROM scored s WHERE s."jockey_id" IS NOT NULL
  ),
  person_days AS (
    INSERT INTO "meeting_stats_person_days"
    SELECT role, person_id, "date", count(*), count(*) FILTER (WHERE won), count(DISTINCT meeting_id), sum(pos),
      count(*) FILTER (WHERE band = 1), count(*) FILTER (WHERE band = 2), count(*) FILTER (WHERE band = 3),
      count(*) FILTER (WHERE band = 4), count(*) FILTER (WHERE band = 5), count(*) FILTER (WHERE band = 6),
      count(*) FILTER (WHERE band = 1 AND won), count(*) FILTER (WHERE band = 2 AND won), count(*) FILTER (WHERE band = 3 AND won),
      count(*) FILTER (WHERE band = 4 AND won), count(*) FILTER (WHERE band = 5 AND won), count(*) FILTER (WHERE band = 6 AND won),
      count(*) FILTER (WHERE band = 1 AND placed), count(*) FILTER (WHERE band = 2 AND placed), count(*) FILTER (WHERE band = 3 AND placed),
      count(*) FILTER (WHERE band = 4 AND placed), count(*) FILTER (WHERE band = 5 AND placed), count(*) FILTER (WHERE band = 6 AND placed)
    FROM people GROUP BY role, person_id, "date"
    -- Rows of one person side by side on disk: a meeting reads a year of each of its people.
    ORDER BY role, person_id, "date"
  ),
  person_horses AS (
    INSERT INTO "meeting_stats_person_horses"
    SELECT role, person_id, "date", "horse_id", count(*), count(*) FILTER (WHERE won)
    FROM people GROUP BY role, person_id, "date", "horse_id"
    ORDER BY role, person_id, "date", "horse_id"
  )
  INSERT INTO "meeting_stats_days"
  SELECT "date",
    count(*) FILTER (WHERE band = 1), count(*) FILTER (WHERE band = 2), count(*) FILTER (WHERE band = 3),
    count(*) FILTER (WHERE band = 4), count(*) FILTER (WHERE band = 5), count(*) FILTER (WHERE band = 6),
    count(*) FILTER (WHERE band = 1 AND won), count(*) FILTER (WHERE band = 2 AND won), count(*) FILTER (WHERE band = 3 AND won),
    count(*) FILTER (WHERE band = 4 AND won), count(*) FILTER (WHERE band = 5 AND won), count(*) FILTER (WHERE band = 6 AND won),
    count(*) FILTER (WHERE band = 1 AND placed), count(*) FILTER (WHERE band = 2 AND placed), count(*) FILTER (WHERE band = 3 AND placed),
    count(*) FILTER (WHERE band = 4 AND placed), count(*) FILTER (WHERE band = 5 AND placed), count(*) FILTER (WHERE band = 6 AND placed)
  FROM scored GROUP BY "date";
END $$;
--> statement-breakpoint
-- Statement-level triggers (transition tables: a bulk statement recomputes each date it touches once).
-- A bulk load sets racing.bulk_load = 'on' for its transaction and refreshes every date at its end.
CREATE OR REPLACE FUNCTION "meeting_stats_runners_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed date[];
BEGIN
  IF current_setting('racing.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT m."date") INTO changed FROM new_rows r JOIN "races" ra ON ra."id" = r."race_id" JOIN "meetings" m ON m."id" = ra."meeting_id";
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT m."date") INTO changed FROM old_rows r JOIN "races" ra ON ra."id" = r."race_id" JOIN "meetings" m ON m."id" = ra."meeting_id";
  ELSE
    SELECT array_agg(DISTINCT m."date") INTO changed
      FROM (SELECT "race_id" FROM new_rows UNION SELECT "race_id" FROM old_rows) r
      JOIN "races" ra ON ra."id" = r."race_id" JOIN "meetings" m ON m."id" = ra."meeting_id";
  END IF;
  IF changed IS NOT NULL THEN PERFORM "meeting_stats_refresh"(changed); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "meeting_stats_races_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed date[];
BEGIN
  IF current_setting('racing.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  SELECT array_agg(DISTINCT m."date") INTO changed
    FROM (SELECT "meeting_id" FROM new_rows UNION SELECT "meeting_id" FROM old_rows) ra JOIN "meetings" m ON m."id" = ra."meeting_id";
  IF changed IS NOT NULL THEN PERFORM "meeting_stats_refresh"(changed); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "meeting_stats_meetings_changed"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed date[];
BEGIN
  IF current_setting('racing.bulk_load', true) = 'on' THEN RETURN NULL; END IF;
  SELECT array_agg(DISTINCT d."date") INTO changed FROM (SELECT "date" FROM new_rows UNION SELECT "date" FROM old_rows) d;
  IF changed IS NOT NULL THEN PERFORM "meeting_stats_refresh"(changed); END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "runners_insert_meeting_stats" AFTER INSERT ON "runners" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_runners_changed"();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "runners_update_meeting_stats" AFTER UPDATE ON "runners" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_runners_changed"();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "runners_delete_meeting_stats" AFTER DELETE ON "runners" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_runners_changed"();
--> statement-breakpoint
-- A race moved to another meeting moves its starts (a race's insert or delete carries no starts: runners reference it).
CREATE OR REPLACE TRIGGER "races_update_meeting_stats" AFTER UPDATE ON "races" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_races_changed"();
--> statement-breakpoint
-- A meeting's new date or trial flag moves or removes its starts.
CREATE OR REPLACE TRIGGER "meetings_update_meeting_stats" AFTER UPDATE ON "meetings" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_meetings_changed"();
--> statement-breakpoint
SELECT "meeting_stats_refresh"(ARRAY(SELECT DISTINCT "date" FROM "meetings"));
--> statement-breakpoint
-- A meeting's top horses read a year of a person's rows from the index alone.
CREATE INDEX IF NOT EXISTS "meeting_stats_person_horses_covering_idx" ON "meeting_stats_person_horses" USING btree ("role","person_id","date") INCLUDE ("horse_id","starts","wins");
