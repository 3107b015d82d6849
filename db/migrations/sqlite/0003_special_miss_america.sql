CREATE TABLE `alert_deliveries` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`history_id` integer NOT NULL,
	`rule_id` text NOT NULL,
	`target_type` text NOT NULL,
	`target_url` text NOT NULL,
	`notice` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer NOT NULL,
	`transient_failures` integer NOT NULL,
	`next_attempt_at` integer,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `alert_deliveries_due_idx` ON `alert_deliveries` (`status`,`next_attempt_at`);--> statement-breakpoint
CREATE INDEX `alert_deliveries_at_idx` ON `alert_deliveries` (`created_at`);--> statement-breakpoint
CREATE TABLE `alert_delivery_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`delivery_id` integer NOT NULL,
	`at` integer NOT NULL,
	`http_status` integer,
	`outcome` text NOT NULL,
	`error` text,
	`retry_at` integer
);
--> statement-breakpoint
CREATE INDEX `alert_delivery_attempts_delivery_idx` ON `alert_delivery_attempts` (`delivery_id`);--> statement-breakpoint
CREATE TABLE `alert_history` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`rule_id` text NOT NULL,
	`rule_name` text NOT NULL,
	`group_key` text NOT NULL,
	`server` text,
	`at` integer NOT NULL,
	`from_state` text NOT NULL,
	`to_state` text NOT NULL,
	`severity` text,
	`value` real,
	`threshold` real
);
--> statement-breakpoint
CREATE INDEX `alert_history_at_idx` ON `alert_history` (`at`);--> statement-breakpoint
CREATE INDEX `alert_history_rule_idx` ON `alert_history` (`rule_id`,`at`);--> statement-breakpoint
CREATE TABLE `alert_instances` (
	`rule_id` text NOT NULL,
	`group_key` text NOT NULL,
	`server` text,
	`state` text NOT NULL,
	`severity` text,
	`value` real,
	`since` integer NOT NULL,
	`clear_since` integer,
	`evaluated_at` integer NOT NULL,
	PRIMARY KEY(`rule_id`, `group_key`)
);
--> statement-breakpoint
CREATE TABLE `alert_rules` (
	`id` text PRIMARY KEY NOT NULL,
	`definition` text NOT NULL,
	`next_eval_at` integer NOT NULL,
	`last_eval_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `settings` (
	`key` text PRIMARY KEY NOT NULL,
	`value` text NOT NULL
);
