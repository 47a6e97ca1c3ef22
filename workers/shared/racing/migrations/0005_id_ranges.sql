CREATE TABLE "migration_id_ranges" (
	"config_id" integer NOT NULL,
	"dest_table" text NOT NULL,
	"source_lo" bigint NOT NULL,
	"source_hi" bigint NOT NULL,
	"dest_lo" bigint NOT NULL,
	"source_table" text NOT NULL,
	"run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "migration_id_ranges_config_id_dest_table_source_lo_pk" PRIMARY KEY("config_id","dest_table","source_lo")
);
--> statement-breakpoint
DROP INDEX "migration_id_mappings_dest_idx";