CREATE TABLE `gateway_hidden_tools` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`source_id` integer,
	`tool` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `gateway_hidden_tools_idx` ON `gateway_hidden_tools` (`user_id`,coalesce(`source_id`, 0),`tool`);--> statement-breakpoint
CREATE TABLE `source_tool_aliases` (
	`source_id` integer NOT NULL,
	`alias` text NOT NULL,
	`tool_name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_tool_aliases_alias_idx` ON `source_tool_aliases` (`source_id`,`alias`);--> statement-breakpoint
ALTER TABLE `sources` ADD `mcp_command` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `mcp_args` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `mcp_runtime_hint` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `manifest` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `bridge_token` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `hidden` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `last_discovery_attempt_at` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `discovery_warnings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `sources` ADD `inventory_stale_at` text;--> statement-breakpoint
CREATE INDEX `sources_rediscovery_idx` ON `sources` (`enabled`,`last_discovery_attempt_at`);