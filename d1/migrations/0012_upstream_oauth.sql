CREATE TABLE `source_authorizations` (
	`source_id` integer PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`status` text NOT NULL,
	`resource_metadata_url` text,
	`resource` text,
	`authorization_server` text,
	`scopes_supported` text DEFAULT '[]' NOT NULL,
	`discovery_state` text,
	`client_identification` text,
	`client_information` text,
	`tokens` text,
	`token_expires_at` text,
	`granted_scope` text,
	`redirect_uri` text,
	`connected_at` text,
	`refreshed_at` text,
	`last_error` text,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `upstream_oauth_flows` (
	`state_hash` text PRIMARY KEY NOT NULL,
	`start_hash` text NOT NULL,
	`user_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`secrets` text NOT NULL,
	`browser_hash` text,
	`scope` text,
	`return_to` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`source_id`) REFERENCES `sources`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `upstream_oauth_flows_start_idx` ON `upstream_oauth_flows` (`start_hash`);--> statement-breakpoint
CREATE INDEX `upstream_oauth_flows_expiry_idx` ON `upstream_oauth_flows` (`expires_at`);--> statement-breakpoint
ALTER TABLE `sources` ADD `upstream_auth` text DEFAULT 'none' NOT NULL;