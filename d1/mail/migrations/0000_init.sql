CREATE TABLE `notifications` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`subscription_id` text NOT NULL,
	`change_type` text NOT NULL,
	`resource` text NOT NULL,
	`message_id` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `notifications_received` ON `notifications` (`received_at`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`id_hash` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`refresh_token_sealed` text NOT NULL,
	`created_at` integer NOT NULL,
	`expires_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sessions_expires` ON `sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`resource` text NOT NULL,
	`change_type` text NOT NULL,
	`notification_url` text NOT NULL,
	`client_state_hash` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` integer NOT NULL,
	`renewed_at` integer
);
