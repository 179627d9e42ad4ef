CREATE TABLE `rag_chunks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`document_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`position` integer NOT NULL,
	`title` text NOT NULL,
	`content` text NOT NULL,
	`token_count` integer NOT NULL,
	`embedder` text NOT NULL,
	`vector` text,
	FOREIGN KEY (`document_id`) REFERENCES `rag_documents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rag_chunks_user_idx` ON `rag_chunks` (`user_id`,`id`);--> statement-breakpoint
CREATE INDEX `rag_chunks_document_idx` ON `rag_chunks` (`document_id`);--> statement-breakpoint
CREATE TABLE `rag_collections` (
	`user_id` integer PRIMARY KEY NOT NULL,
	`version` integer DEFAULT 0 NOT NULL,
	`document_count` integer DEFAULT 0 NOT NULL,
	`chunk_count` integer DEFAULT 0 NOT NULL,
	`token_count` integer DEFAULT 0 NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `rag_communities` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`collection_version` integer NOT NULL,
	`title` text NOT NULL,
	`summary` text NOT NULL,
	`documents` text NOT NULL,
	`entity_count` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rag_communities_user_idx` ON `rag_communities` (`user_id`,`collection_version`);--> statement-breakpoint
CREATE TABLE `rag_documents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`doc_id` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`source` text DEFAULT '' NOT NULL,
	`metadata` text DEFAULT '{}' NOT NULL,
	`chunk_count` integer NOT NULL,
	`content_hash` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rag_documents_user_doc_idx` ON `rag_documents` (`user_id`,`doc_id`);--> statement-breakpoint
CREATE TABLE `rag_entities` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`user_id` integer NOT NULL,
	`name` text NOT NULL,
	`label` text NOT NULL,
	`kind` text NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rag_entities_user_name_idx` ON `rag_entities` (`user_id`,`name`);--> statement-breakpoint
CREATE TABLE `rag_mentions` (
	`entity_id` integer NOT NULL,
	`chunk_id` integer NOT NULL,
	`count` integer NOT NULL,
	FOREIGN KEY (`entity_id`) REFERENCES `rag_entities`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`chunk_id`) REFERENCES `rag_chunks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `rag_mentions_entity_chunk_idx` ON `rag_mentions` (`entity_id`,`chunk_id`);--> statement-breakpoint
CREATE INDEX `rag_mentions_chunk_idx` ON `rag_mentions` (`chunk_id`);--> statement-breakpoint
CREATE TABLE `rag_query_log` (
	`request_id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`pipeline` text NOT NULL,
	`started_at` text NOT NULL,
	`outcome` text NOT NULL,
	`error_code` text,
	`total_ms` integer NOT NULL,
	`retrieval_ms` integer NOT NULL,
	`generation_ms` integer NOT NULL,
	`tokens_used` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `rag_query_log_started_idx` ON `rag_query_log` (`started_at`);--> statement-breakpoint
CREATE INDEX `rag_query_log_pipeline_idx` ON `rag_query_log` (`pipeline`,`started_at`);--> statement-breakpoint
CREATE TABLE `rag_relations` (
	`chunk_id` integer NOT NULL,
	`user_id` integer NOT NULL,
	`source_id` integer NOT NULL,
	`target_id` integer NOT NULL,
	`weight` integer NOT NULL,
	FOREIGN KEY (`chunk_id`) REFERENCES `rag_chunks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `rag_relations_source_idx` ON `rag_relations` (`source_id`);--> statement-breakpoint
CREATE INDEX `rag_relations_target_idx` ON `rag_relations` (`target_id`);--> statement-breakpoint
CREATE INDEX `rag_relations_chunk_idx` ON `rag_relations` (`chunk_id`);--> statement-breakpoint
CREATE INDEX `rag_relations_user_idx` ON `rag_relations` (`user_id`);