DROP INDEX `sources_rediscovery_idx`;--> statement-breakpoint
ALTER TABLE `sources` ADD `rediscover_at` text;--> statement-breakpoint
CREATE INDEX `sources_rediscover_at_idx` ON `sources` (`enabled`,`rediscover_at`);