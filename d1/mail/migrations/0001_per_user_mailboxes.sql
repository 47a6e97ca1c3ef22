CREATE TABLE `mailboxes` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`mail` text NOT NULL,
	`notification_url` text NOT NULL,
	`connected_at` integer NOT NULL
);
--> statement-breakpoint
DROP TABLE `notifications`;--> statement-breakpoint
ALTER TABLE `sessions` ADD `checked_at` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Subscriptions of the one shared mailbox of before belong to no user: they lapse at Graph.
DELETE FROM `subscriptions`;--> statement-breakpoint
ALTER TABLE `subscriptions` ADD `user_id` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `subscriptions_user` ON `subscriptions` (`user_id`);