CREATE TABLE "meeting_stats_baselines" (
	"as_of" date PRIMARY KEY NOT NULL,
	"bands" jsonb NOT NULL,
	"computed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
-- A baseline as of D counts the starts of [D-365, D-1]: a change to a start on date M touches the
-- baselines as of M+1 … M+365, which are deleted (and recomputed on next use).
CREATE OR REPLACE FUNCTION "meeting_stats_baselines_forget_runners"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "meeting_stats_baselines") THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    DELETE FROM "meeting_stats_baselines" b
     USING (SELECT DISTINCT m."date" FROM new_rows r JOIN "races" ra ON ra."id" = r."race_id" JOIN "meetings" m ON m."id" = ra."meeting_id") d
     WHERE b."as_of" BETWEEN d."date" + 1 AND d."date" + 365;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM "meeting_stats_baselines" b
     USING (SELECT DISTINCT m."date" FROM old_rows r JOIN "races" ra ON ra."id" = r."race_id" JOIN "meetings" m ON m."id" = ra."meeting_id") d
     WHERE b."as_of" BETWEEN d."date" + 1 AND d."date" + 365;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "meeting_stats_baselines_forget_meetings"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "meeting_stats_baselines") THEN RETURN NULL; END IF;
  IF TG_OP IN ('INSERT', 'UPDATE') THEN
    DELETE FROM "meeting_stats_baselines" b USING (SELECT DISTINCT "date" FROM new_rows) d
     WHERE b."as_of" BETWEEN d."date" + 1 AND d."date" + 365;
  END IF;
  IF TG_OP IN ('UPDATE', 'DELETE') THEN
    DELETE FROM "meeting_stats_baselines" b USING (SELECT DISTINCT "date" FROM old_rows) d
     WHERE b."as_of" BETWEEN d."date" + 1 AND d."date" + 365;
  END IF;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "runners_insert_forgets_baselines" AFTER INSERT ON "runners" REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_baselines_forget_runners"();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "runners_update_forgets_baselines" AFTER UPDATE ON "runners" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_baselines_forget_runners"();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "runners_delete_forgets_baselines" AFTER DELETE ON "runners" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_baselines_forget_runners"();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "meetings_update_forgets_baselines" AFTER UPDATE ON "meetings" REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_baselines_forget_meetings"();
--> statement-breakpoint
CREATE OR REPLACE TRIGGER "meetings_delete_forgets_baselines" AFTER DELETE ON "meetings" REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION "meeting_stats_baselines_forget_meetings"();
--> statement-breakpoint
-- A meeting's statistics find the races of its trainers and jockeys from these alone (index-only).
CREATE INDEX IF NOT EXISTS "runners_trainer_id_race_id_idx" ON "runners" USING btree ("trainer_id","race_id");
--> statement-breakpoint
CREATE INDEX IF NOT EXISTS "runners_jockey_id_race_id_idx" ON "runners" USING btree ("jockey_id","race_id");
