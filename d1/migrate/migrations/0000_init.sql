CREATE TABLE `configurations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`host` text NOT NULL,
	`port` integer NOT NULL,
	`database` text NOT NULL,
	`username` text NOT NULL,
	`password_sealed` text NOT NULL,
	`is_active` integer DEFAULT false NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `configurations_active` ON `configurations` (`is_active`);--> statement-breakpoint
CREATE TABLE `custom_relationships` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`parent_table` text NOT NULL,
	`parent_column` text NOT NULL,
	`child_table` text NOT NULL,
	`child_column` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `migration_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `custom_relationships_session` ON `custom_relationships` (`session_id`);--> statement-breakpoint
CREATE TABLE `login_sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`refresh_token_sealed` text NOT NULL,
	`access_expires_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `login_sessions_expires` ON `login_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `migration_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`config_id` integer NOT NULL,
	`status` text DEFAULT 'Created' NOT NULL,
	`selected_tables` text DEFAULT '[]' NOT NULL,
	`schema_file` text,
	`mappings` text DEFAULT '[]' NOT NULL,
	`filters` text DEFAULT '{}' NOT NULL,
	`natural_keys` text DEFAULT '{}' NOT NULL,
	`table_order` text DEFAULT '[]' NOT NULL,
	`patch_mode` integer DEFAULT false NOT NULL,
	`run_id` text,
	`created_by` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`updated_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `migration_sessions_created` ON `migration_sessions` (`created_at`);--> statement-breakpoint
CREATE INDEX `migration_sessions_status` ON `migration_sessions` (`status`);--> statement-breakpoint
CREATE TABLE `pending_mappings` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`session_id` text NOT NULL,
	`table_name` text NOT NULL,
	`source_id` text NOT NULL,
	`dest_id` text NOT NULL,
	`matched_on` text DEFAULT '' NOT NULL,
	`state` text DEFAULT 'Pending' NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsec') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`session_id`) REFERENCES `migration_sessions`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `pending_mappings_session` ON `pending_mappings` (`session_id`,`state`);--> statement-breakpoint
CREATE TABLE `rate_limits` (
	`key` text PRIMARY KEY NOT NULL,
	`window_start` integer NOT NULL,
	`count` integer NOT NULL
);
