CREATE TABLE `discipline_repair_jobs` (
	`job_id` text PRIMARY KEY NOT NULL,
	`config_id` integer NOT NULL,
	`started_by` text NOT NULL,
	`state` text NOT NULL,
	`changed` integer DEFAULT 0 NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `discipline_repair_jobs_created` ON `discipline_repair_jobs` (`created_at`);