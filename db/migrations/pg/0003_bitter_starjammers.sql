CREATE TABLE "alert_deliveries" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"history_id" bigint NOT NULL,
	"rule_id" text NOT NULL,
	"target_type" text NOT NULL,
	"target_url" text NOT NULL,
	"notice" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer NOT NULL,
	"transient_failures" integer NOT NULL,
	"next_attempt_at" bigint,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alert_delivery_attempts" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"delivery_id" bigint NOT NULL,
	"at" bigint NOT NULL,
	"http_status" integer,
	"outcome" text NOT NULL,
	"error" text,
	"retry_at" bigint
);
--> statement-breakpoint
CREATE TABLE "alert_history" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rule_id" text NOT NULL,
	"rule_name" text NOT NULL,
	"group_key" text NOT NULL,
	"server" text,
	"at" bigint NOT NULL,
	"from_state" text NOT NULL,
	"to_state" text NOT NULL,
	"severity" text,
	"value" double precision,
	"threshold" double precision
);
--> statement-breakpoint
CREATE TABLE "alert_instances" (
	"rule_id" text NOT NULL,
	"group_key" text NOT NULL,
	"server" text,
	"state" text NOT NULL,
	"severity" text,
	"value" double precision,
	"since" bigint NOT NULL,
	"clear_since" bigint,
	"evaluated_at" bigint NOT NULL,
	CONSTRAINT "alert_instances_rule_id_group_key_pk" PRIMARY KEY("rule_id","group_key")
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" text PRIMARY KEY NOT NULL,
	"definition" text NOT NULL,
	"next_eval_at" bigint NOT NULL,
	"last_eval_at" bigint,
	"last_error" text,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "settings" (
	"key" text PRIMARY KEY NOT NULL,
	"value" text NOT NULL
);
--> statement-breakpoint
CREATE INDEX "alert_deliveries_due_idx" ON "alert_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "alert_deliveries_at_idx" ON "alert_deliveries" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "alert_delivery_attempts_delivery_idx" ON "alert_delivery_attempts" USING btree ("delivery_id");--> statement-breakpoint
CREATE INDEX "alert_history_at_idx" ON "alert_history" USING btree ("at");--> statement-breakpoint
CREATE INDEX "alert_history_rule_idx" ON "alert_history" USING btree ("rule_id","at");