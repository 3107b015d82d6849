DROP INDEX `storms_window_idx`;--> statement-breakpoint
CREATE INDEX `storms_window_idx` ON `storms` (`last_ts`,`first_ts`,`avoidable`,`id`,`kind`,`attempts`);