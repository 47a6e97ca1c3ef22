CREATE TABLE `ai_reply_settings` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`follow_up_days` integer DEFAULT 3 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `ai_sender_jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`sender` text NOT NULL,
	`method` text NOT NULL,
	`outcome` text NOT NULL,
	`detail` text DEFAULT '' NOT NULL,
	`status` text NOT NULL,
	`archived` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`resumed` integer DEFAULT 0 NOT NULL,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `ai_sender_jobs_user_created` ON `ai_sender_jobs` (`user_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `ai_sent_replies` (
	`user_id` integer NOT NULL,
	`message_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`subject` text DEFAULT '' NOT NULL,
	`recipients` text DEFAULT '[]' NOT NULL,
	`sent_at` integer NOT NULL,
	`status` text DEFAULT 'awaiting' NOT NULL,
	`answered_at` integer,
	`answer_message_id` text,
	`follow_up_at` integer,
	`follow_up_draft_id` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `ai_sent_replies_conversation` ON `ai_sent_replies` (`user_id`,`conversation_id`);--> statement-breakpoint
CREATE INDEX `ai_sent_replies_status` ON `ai_sent_replies` (`status`,`sent_at`);