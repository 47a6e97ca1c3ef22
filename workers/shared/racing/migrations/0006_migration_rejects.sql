CREATE TABLE "migration_rejects" (
	"run_id" text NOT NULL,
	"dest_table" text NOT NULL,
	"source_id" text NOT NULL,
	"source_table" text NOT NULL,
	"column_name" text,
	"value" text,
	"sqlstate" text NOT NULL,
	"message" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "migration_rejects_run_id_dest_table_source_id_pk" PRIMARY KEY("run_id","dest_table","source_id")
);
