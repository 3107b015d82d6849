CREATE TABLE "fold_queue" (
	"first_seq" bigint PRIMARY KEY NOT NULL,
	"last_seq" bigint NOT NULL,
	"min_ts" bigint NOT NULL,
	"committed_at" bigint NOT NULL
);
