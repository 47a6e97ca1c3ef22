CREATE TABLE `sync_jobs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`config_id` integer NOT NULL,
	`tables` text DEFAULT '[]' NOT NULL,
	`patch_mode` integer DEFAULT false NOT NULL,
	`interval_minutes` integer NOT NULL,
	`enabled` integer DEFAULT false NOT NULL,
	`next_run_at` integer,
	`last_run_id` text,
	`last_run_at` integer,
	`last_status` text,
	`last_error` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`config_id`) REFERENCES `configurations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `sync_jobs_due` ON `sync_jobs` (`enabled`,`next_run_at`);--> statement-breakpoint
CREATE INDEX `sync_jobs_config` ON `sync_jobs` (`config_id`);--> statement-breakpoint
CREATE TABLE `sync_schema_files` (
	`config_id` integer PRIMARY KEY NOT NULL,
	`document` text NOT NULL,
	`uploaded_by` text NOT NULL,
	`uploaded_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`config_id`) REFERENCES `configurations`(`id`) ON UPDATE no action ON DELETE cascade
);
