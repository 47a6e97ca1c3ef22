CREATE TABLE `ai_categories` (
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`rule` text DEFAULT '' NOT NULL,
	`reply_mode` text DEFAULT 'manual' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `ai_drafts` (
	`user_id` integer NOT NULL,
	`email_id` text NOT NULL,
	`draft_id` text NOT NULL,
	`body_html` text DEFAULT '' NOT NULL,
	`category` text DEFAULT 'unknown' NOT NULL,
	`trace_id` text DEFAULT '' NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`sent_at` integer,
	PRIMARY KEY(`user_id`, `email_id`)
);
--> statement-breakpoint
CREATE INDEX `ai_drafts_user_draft` ON `ai_drafts` (`user_id`,`draft_id`);--> statement-breakpoint
CREATE TABLE `ai_emails` (
	`user_id` integer NOT NULL,
	`message_id` text NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`sender` text DEFAULT '' NOT NULL,
	`body_text` text DEFAULT '' NOT NULL,
	`clean_text` text DEFAULT '' NOT NULL,
	`received_at` integer DEFAULT 0 NOT NULL,
	`cached_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `ai_emails_user_cached` ON `ai_emails` (`user_id`,`cached_at`);--> statement-breakpoint
CREATE TABLE `ai_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`kind` text NOT NULL,
	`status` text NOT NULL,
	`total` integer DEFAULT 0 NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`changed` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `ai_jobs_user_created` ON `ai_jobs` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ai_prompts` (
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`body` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `name`)
);
--> statement-breakpoint
CREATE TABLE `ai_summaries` (
	`user_id` integer NOT NULL,
	`message_id` text NOT NULL,
	`conversation_id` text DEFAULT '' NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`sender` text DEFAULT '' NOT NULL,
	`recipients` text DEFAULT '[]' NOT NULL,
	`direction` text DEFAULT 'inbound' NOT NULL,
	`category` text DEFAULT 'unknown' NOT NULL,
	`summary` text DEFAULT '' NOT NULL,
	`bullets` text DEFAULT '[]' NOT NULL,
	`pinned` integer DEFAULT 0 NOT NULL,
	`needs_reply` integer DEFAULT 0 NOT NULL,
	`received_at` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `ai_summaries_user_received` ON `ai_summaries` (`user_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `ai_summaries_user_category` ON `ai_summaries` (`user_id`,`category`);--> statement-breakpoint
CREATE INDEX `ai_summaries_user_conversation` ON `ai_summaries` (`user_id`,`conversation_id`);--> statement-breakpoint
CREATE TABLE `ai_thread_summaries` (
	`user_id` integer NOT NULL,
	`thread_id` text NOT NULL,
	`summary` text NOT NULL,
	`bullets` text DEFAULT '[]' NOT NULL,
	`message_count` integer DEFAULT 0 NOT NULL,
	`seen` text DEFAULT '[]' NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `thread_id`)
);
--> statement-breakpoint
CREATE TABLE `ai_trace_steps` (
	`trace_id` text NOT NULL,
	`seq` integer NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`latency_ms` integer NOT NULL,
	`tokens_in` integer DEFAULT 0 NOT NULL,
	`tokens_out` integer DEFAULT 0 NOT NULL,
	`outcome` text NOT NULL,
	`detail` text DEFAULT '' NOT NULL,
	`at` integer NOT NULL,
	PRIMARY KEY(`trace_id`, `seq`)
);
--> statement-breakpoint
CREATE TABLE `ai_traces` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`outcome` text DEFAULT 'ok' NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `ai_traces_user_created` ON `ai_traces` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ai_users` (
	`email` text PRIMARY KEY NOT NULL,
	`name` text DEFAULT '' NOT NULL,
	`added_by` text NOT NULL,
	`created_at` integer NOT NULL
);
