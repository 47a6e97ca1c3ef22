CREATE TABLE "meeting_stats_payloads" (
	"date" date NOT NULL,
	"course_id" integer NOT NULL,
	"trainer_stats" jsonb NOT NULL,
	"jockey_stats" jsonb NOT NULL,
	"saved_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "meeting_stats_payloads_date_course_id_pk" PRIMARY KEY("date","course_id")
);
--> statement-breakpoint
CREATE INDEX "runners_trainer_id_wins_idx" ON "runners" USING btree ("trainer_id") WHERE "runners"."finishing_position" = 1;--> statement-breakpoint
CREATE INDEX "runners_jockey_id_wins_idx" ON "runners" USING btree ("jockey_id") WHERE "runners"."finishing_position" = 1;