CREATE TABLE `source_tools` (
	`source_id` integer NOT NULL,
	`name` text NOT NULL,
	`alias` text NOT NULL,
	`title` text,
	`description` text DEFAULT '' NOT NULL,
	`input_schema` text NOT NULL,
	`output_schema` text,
	`annotations` text DEFAULT '{}' NOT NULL,
	`discovered_at` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_tools_name_idx` ON `source_tools` (`source_id`,`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `source_tools_alias_idx` ON `source_tools` (`source_id`,`alias`);--> statement-breakpoint
CREATE TABLE `sources` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`slug` text NOT NULL,
	`source_type` text DEFAULT 'mcp' NOT NULL,
	`mcp_server_url` text NOT NULL,
	`mcp_transport_type` text DEFAULT 'streamable_http' NOT NULL,
	`mcp_lifecycle_mode` text DEFAULT 'transient' NOT NULL,
	`mcp_env_vars` text DEFAULT '[]' NOT NULL,
	`timeout_ms` integer DEFAULT 30000 NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`last_discovered_at` text,
	`last_discovery_error` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sources_user_slug_idx` ON `sources` (`user_id`,`slug`);