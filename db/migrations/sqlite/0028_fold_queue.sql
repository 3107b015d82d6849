CREATE TABLE `fold_queue` (
	`first_seq` integer PRIMARY KEY NOT NULL,
	`last_seq` integer NOT NULL,
	`min_ts` integer NOT NULL,
	`committed_at` integer NOT NULL
);
