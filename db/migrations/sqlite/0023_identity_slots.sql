-- The alarm list's candidates come from each hour's sends per 10-minute slot (ADR 7).
ALTER TABLE `identity_hour` ADD `sends_00` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `identity_hour` ADD `sends_10` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `identity_hour` ADD `sends_20` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `identity_hour` ADD `sends_30` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `identity_hour` ADD `sends_40` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `identity_hour` ADD `sends_50` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Each stored hour's sends per 10-minute slot, counted from its events as ingest would have kept them.
UPDATE `identity_hour` SET sends_00 = s.sends_00, sends_10 = s.sends_10, sends_20 = s.sends_20, sends_30 = s.sends_30, sends_40 = s.sends_40, sends_50 = s.sends_50
FROM (SELECT ts - ts % 3600000 AS start, identity, sum(CASE WHEN ts % 3600000 / 600000 = 0 THEN 1 ELSE 0 END) AS sends_00, sum(CASE WHEN ts % 3600000 / 600000 = 1 THEN 1 ELSE 0 END) AS sends_10, sum(CASE WHEN ts % 3600000 / 600000 = 2 THEN 1 ELSE 0 END) AS sends_20, sum(CASE WHEN ts % 3600000 / 600000 = 3 THEN 1 ELSE 0 END) AS sends_30, sum(CASE WHEN ts % 3600000 / 600000 = 4 THEN 1 ELSE 0 END) AS sends_40, sum(CASE WHEN ts % 3600000 / 600000 = 5 THEN 1 ELSE 0 END) AS sends_50
  FROM `events` WHERE counted = 1 AND identity IS NOT NULL GROUP BY 1, 2) AS s
WHERE identity_hour.start = s.start AND identity_hour.identity = s.identity;
