ALTER TABLE `sources` ADD `upstream_kind` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `protocol_version` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `discover_result` text;