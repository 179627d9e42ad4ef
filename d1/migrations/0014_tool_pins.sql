CREATE TABLE `source_tool_pins` (
	`source_id` integer NOT NULL,
	`name` text NOT NULL,
	`definition_hash` text NOT NULL,
	`definition` text NOT NULL,
	`approved_at` text NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `source_tool_pins_name_idx` ON `source_tool_pins` (`source_id`,`name`);--> statement-breakpoint
ALTER TABLE `source_tools` ADD `definition_hash` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `source_tools` ADD `definition_since` text;--> statement-breakpoint
ALTER TABLE `source_tools` ADD `definition_bytes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `source_tools` ADD `text_warnings` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
-- Tools discovered before pinning stay listed: what each adds to its owner's listing, and its stored
-- definition pinned as approved with an empty hash, matched by the rows' own empty hash until the next
-- discovery hashes both (workers/gateway/tool-pins.ts, decision 0049).
UPDATE source_tools SET
  definition_bytes = length(CAST(name AS BLOB)) + coalesce(length(CAST(title AS BLOB)), 0) + length(CAST(description AS BLOB))
    + length(CAST(input_schema AS BLOB)) + coalesce(length(CAST(output_schema AS BLOB)), 0) + length(CAST(annotations AS BLOB)),
  definition_since = discovered_at;
--> statement-breakpoint
INSERT OR IGNORE INTO source_tool_pins (source_id, name, definition_hash, definition, approved_at)
SELECT source_id, name, '', json_object('title', title, 'description', description, 'input_schema', json(input_schema),
  'output_schema', json(output_schema), 'annotations', json(annotations)), discovered_at
FROM source_tools;
