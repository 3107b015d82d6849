CREATE TABLE `gate_pending` (
	`partition` text PRIMARY KEY NOT NULL,
	`token` text NOT NULL,
	`since` integer NOT NULL
);
