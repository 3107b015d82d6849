ALTER TABLE `events` ADD `source_format` text;--> statement-breakpoint
ALTER TABLE `events` ADD `frames` integer;