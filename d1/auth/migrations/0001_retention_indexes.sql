CREATE INDEX `refresh_families_expires` ON `refresh_families` (`expires_at`);--> statement-breakpoint
CREATE INDEX `totp_used_steps_step` ON `totp_used_steps` (`step`);