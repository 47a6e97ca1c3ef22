CREATE TABLE `ai_rule_actions` (
	`user_id` integer NOT NULL,
	`message_id` text NOT NULL,
	`action_index` integer NOT NULL,
	`action` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`detail` text DEFAULT '' NOT NULL,
	`trace_id` text DEFAULT '' NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`, `action_index`)
);
--> statement-breakpoint
ALTER TABLE `ai_categories` ADD `actions` text DEFAULT '[]' NOT NULL;