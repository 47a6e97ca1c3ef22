CREATE TABLE `import_auto_syncs` (
	`area` text PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`interval_minutes` integer DEFAULT 60 NOT NULL,
	`source_url` text,
	`sheet_path` text,
	`sheet_name` text,
	`fk_config` text DEFAULT '{}' NOT NULL,
	`filter` text DEFAULT '' NOT NULL,
	`next_run_at` integer,
	`last_job_id` text,
	`last_run_at` integer,
	`last_status` text,
	`last_error` text,
	`updated_by` text NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `import_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`area` text NOT NULL,
	`action` text NOT NULL,
	`detail` text NOT NULL,
	`user` text NOT NULL,
	`at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `import_events_area_at` ON `import_events` (`area`,`at`);--> statement-breakpoint
CREATE TABLE `import_jobs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`area` text NOT NULL,
	`file_name` text NOT NULL,
	`trigger` text NOT NULL,
	`started_by` text NOT NULL,
	`state` text NOT NULL,
	`inserted` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`unchanged` integer DEFAULT 0 NOT NULL,
	`skipped` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `import_jobs_area_created` ON `import_jobs` (`area`,`created_at`);--> statement-breakpoint
CREATE TABLE `import_uploads` (
	`temp_path` text PRIMARY KEY NOT NULL,
	`area` text NOT NULL,
	`file_name` text NOT NULL,
	`bytes` integer NOT NULL,
	`rows` integer NOT NULL,
	`valid_rows` integer NOT NULL,
	`fk_counts` text DEFAULT '{}' NOT NULL,
	`uploaded_by` text NOT NULL,
	`uploaded_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `import_uploads_area` ON `import_uploads` (`area`,`uploaded_at`);