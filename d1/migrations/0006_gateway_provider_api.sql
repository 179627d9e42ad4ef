ALTER TABLE `sources` ADD `description` text;--> statement-breakpoint
ALTER TABLE `sources` ADD `mcp_plugin_dir` text;