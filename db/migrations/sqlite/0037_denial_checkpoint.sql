-- The denial audit's checkpoints (ADR 15, db/counters/denials.ts): where a change to later events resumes the audit,
-- and where a full audit starts once retention deleted the events before it. Every identity starts with neither:
-- its next audit reads all its events, as before.
ALTER TABLE `denial_identity` ADD `checkpoint_at` integer;--> statement-breakpoint
ALTER TABLE `denial_identity` ADD `checkpoint` text;--> statement-breakpoint
ALTER TABLE `denial_identity` ADD `base_at` integer;--> statement-breakpoint
ALTER TABLE `denial_identity` ADD `base` text;
