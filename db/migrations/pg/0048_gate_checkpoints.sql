CREATE TABLE "gate_checkpoint_keys" (
	"partition" text NOT NULL,
	"key" text NOT NULL,
	"state" text NOT NULL,
	CONSTRAINT "gate_checkpoint_keys_partition_key_pk" PRIMARY KEY("partition","key")
);
--> statement-breakpoint
CREATE TABLE "gate_checkpoints" (
	"partition" text PRIMARY KEY NOT NULL,
	"frontier_ts" bigint NOT NULL,
	"frontier_id" text NOT NULL,
	"wait_until" bigint,
	"storms" text NOT NULL,
	"final_storms" text NOT NULL
);
