CREATE TABLE `sync_job_tables` (
	`job_id` integer NOT NULL,
	`source_table` text NOT NULL,
	`method` text DEFAULT 'auto' NOT NULL,
	`column` text,
	`deletes` text DEFAULT 'ignore' NOT NULL,
	`soft_delete_column` text,
	`mark_of` text,
	`mark` text,
	`mark_run_id` text,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`job_id`, `source_table`),
	FOREIGN KEY (`job_id`) REFERENCES `sync_jobs`(`id`) ON UPDATE no action ON DELETE cascade
);
