CREATE TABLE "config_id_mappings" (
	"config_id" integer NOT NULL,
	"table_name" text NOT NULL,
	"source_id" text NOT NULL,
	"dest_id" text NOT NULL,
	"synced_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "config_id_mappings_config_id_table_name_source_id_pk" PRIMARY KEY("config_id","table_name","source_id")
);
--> statement-breakpoint
CREATE TABLE "migration_id_mappings" (
	"config_id" integer NOT NULL,
	"dest_table" text NOT NULL,
	"source_id" text NOT NULL,
	"source_table" text NOT NULL,
	"dest_id" text NOT NULL,
	"run_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "migration_id_mappings_config_id_dest_table_source_id_pk" PRIMARY KEY("config_id","dest_table","source_id")
);
--> statement-breakpoint
CREATE TABLE "migration_run_cursors" (
	"run_id" text NOT NULL,
	"dest_table" text NOT NULL,
	"phase" text NOT NULL,
	"cursor" text,
	"done" integer DEFAULT 0 NOT NULL,
	"inserted" integer DEFAULT 0 NOT NULL,
	"updated" integer DEFAULT 0 NOT NULL,
	"skipped" integer DEFAULT 0 NOT NULL,
	"finished" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "migration_run_cursors_run_id_dest_table_phase_pk" PRIMARY KEY("run_id","dest_table","phase")
);
--> statement-breakpoint
CREATE INDEX "migration_id_mappings_dest_idx" ON "migration_id_mappings" USING btree ("config_id","dest_table","dest_id");