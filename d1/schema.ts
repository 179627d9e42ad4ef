/**
 * The D1 schema, the single source drizzle-kit generates migrations from.
 * Timestamps are ISO 8601 UTC strings: they sort as text and read well in SQL.
 * docs/storage.md describes every table; keep the two in step.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

const now = sql`(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull().unique(),
  createdAt: text("created_at").notNull().default(now),
});

/** Only a SHA-256 of each token is stored; the token itself is shown once, at creation. */
export const apiTokens = sqliteTable(
  "api_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull(),
    label: text("label").notNull().default(""),
    createdAt: text("created_at").notNull().default(now),
    revokedAt: text("revoked_at"),
    /** JSON array of the scopes the token grants; NULL = every scope (tokens made before scopes, or `--scope` not given). */
    scopes: text("scopes", { mode: "json" }).$type<string[]>(),
  },
  (t) => [uniqueIndex("api_tokens_hash_idx").on(t.tokenHash)],
);

/**
 * Browser sessions of the sign-in page at /authorize: the `__Host-` cookie holds a random id,
 * only its SHA-256 is stored. A session signs the user in to authorize clients, nothing else.
 */
export const oauthSessions = sqliteTable(
  "oauth_sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** How the user signed in: `api_token`, `login_link`, `oidc`. */
    method: text("method").notNull(),
    /** JSON array: the most this sign-in may grant (a scoped API token's own scopes); NULL = every scope. */
    scopes: text("scopes", { mode: "json" }).$type<string[]>(),
    createdAt: text("created_at").notNull().default(now),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [index("oauth_sessions_expiry_idx").on(t.expiresAt)],
);

/**
 * A person signed in through an external OpenID Connect provider: (issuer, subject) names them for
 * good (the provider's `sub` never changes or moves to someone else; e-mail addresses and user
 * names may), so it is the key to the local user — created at the first sign-in, never matched by name.
 */
export const userIdentities = sqliteTable(
  "user_identities",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    issuer: text("issuer").notNull(),
    subject: text("subject").notNull(),
    createdAt: text("created_at").notNull().default(now),
    lastSignInAt: text("last_sign_in_at").notNull().default(now),
  },
  (t) => [uniqueIndex("user_identities_subject_idx").on(t.issuer, t.subject), index("user_identities_user_idx").on(t.userId)],
);

/** One-time sign-in links printed by `npm run token -- login-link`: SHA-256 of the code, single use, short-lived. */
export const loginLinks = sqliteTable(
  "login_links",
  {
    codeHash: text("code_hash").primaryKey(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    createdAt: text("created_at").notNull().default(now),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [index("login_links_expiry_idx").on(t.expiresAt)],
);

/**
 * Consent a user gave, per (user, client, redirect URI, resource) — never per client alone — and
 * the scopes it covered: an authorization asking for a subset of them skips the consent page.
 */
export const oauthConsents = sqliteTable(
  "oauth_consents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    clientId: text("client_id").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    resource: text("resource").notNull(),
    /** JSON array of the scopes approved last time. */
    scopes: text("scopes", { mode: "json" }).$type<string[]>().notNull(),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [uniqueIndex("oauth_consents_key_idx").on(t.userId, t.clientId, t.redirectUri, t.resource)],
);

export const tasks = sqliteTable(
  "tasks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    description: text("description").notNull(),
    status: text("status", { enum: ["pending", "completed"] })
      .notNull()
      .default("pending"),
    priority: text("priority", { enum: ["none", "low", "medium", "high"] })
      .notNull()
      .default("none"),
    dueDate: text("due_date"),
    /** JSON array of strings, trimmed and de-duplicated by the service. */
    tags: text("tags", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    recurrencePattern: text("recurrence_pattern", { enum: ["daily", "weekly", "monthly"] }),
    /** Set once a completed recurring task has spawned its next occurrence, so re-completing never spawns twice. */
    nextOccurrenceId: integer("next_occurrence_id"),
    completedAt: text("completed_at"),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [
    index("tasks_user_created_idx").on(t.userId, t.createdAt),
    index("tasks_user_status_idx").on(t.userId, t.status),
    index("tasks_user_due_idx").on(t.userId, t.dueDate),
  ],
);

export const reminders = sqliteTable(
  "reminders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    taskId: integer("task_id")
      .notNull()
      .references(() => tasks.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    remindAt: text("remind_at").notNull(),
    createdAt: text("created_at").notNull().default(now),
    sentAt: text("sent_at"),
  },
  (t) => [index("reminders_due_idx").on(t.sentAt, t.remindAt), index("reminders_task_idx").on(t.taskId)],
);

/**
 * Transactional outbox: every domain event is inserted in the same D1 batch as the change it
 * describes. A row stays undelivered until the queue consumer has recorded it in audit_log; once
 * delivered longer than AUDIT_RETENTION_DAYS ago it is deleted by the cron (events/retention.cron.ts,
 * through `outbox_pending_idx`). An undelivered row is never deleted.
 */
export const outbox = sqliteTable(
  "outbox",
  {
    eventId: text("event_id").primaryKey(),
    type: text("type").notNull(),
    userId: integer("user_id").notNull(),
    taskId: integer("task_id"),
    payload: text("payload").notNull(),
    createdAt: text("created_at").notNull(),
    attempts: integer("attempts").notNull().default(0),
    lastAttemptAt: text("last_attempt_at"),
    lastError: text("last_error"),
    deliveredAt: text("delivered_at"),
  },
  (t) => [index("outbox_pending_idx").on(t.deliveredAt, t.createdAt)],
);

/**
 * What the consumer has processed, keyed by event id: replays are no-ops. Rows older than
 * AUDIT_RETENTION_DAYS are deleted by the cron in bounded batches (events/retention.cron.ts), oldest
 * first through `audit_log_occurred_idx`; each user reads their own tool calls through
 * `audit_log_user_idx` (activity/).
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    eventId: text("event_id").primaryKey(),
    type: text("type").notNull(),
    userId: integer("user_id").notNull(),
    taskId: integer("task_id"),
    occurredAt: text("occurred_at").notNull(),
    processedAt: text("processed_at").notNull().default(now),
    payload: text("payload").notNull(),
  },
  (t) => [index("audit_log_user_idx").on(t.userId, t.occurredAt), index("audit_log_occurred_idx").on(t.occurredAt)],
);

/** Queue messages that exhausted their retries or could not be parsed: kept, never dropped. */
export const deadLetters = sqliteTable("dead_letters", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  queue: text("queue").notNull(),
  messageId: text("message_id").notNull(),
  body: text("body").notNull(),
  reason: text("reason").notNull(),
  receivedAt: text("received_at").notNull().default(now),
});

// ---- RAG: documents, chunks, the entity graph, query log. See docs/storage.md. ----

/** Per-user collection state; `version` changes on every ingest or delete, so caches can tell they are stale. */
export const ragCollections = sqliteTable("rag_collections", {
  userId: integer("user_id")
    .primaryKey()
    .references(() => users.id, { onDelete: "cascade" }),
  version: integer("version").notNull().default(0),
  documentCount: integer("document_count").notNull().default(0),
  chunkCount: integer("chunk_count").notNull().default(0),
  /** Sum of chunk lengths in tokens (title + content), for BM25's average length. */
  tokenCount: integer("token_count").notNull().default(0),
  updatedAt: text("updated_at").notNull().default(now),
});

export const ragDocuments = sqliteTable(
  "rag_documents",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The document's own id as ingested (a BEIR `_id`, a URL, …); unique per user. */
    docId: text("doc_id").notNull(),
    title: text("title").notNull().default(""),
    source: text("source").notNull().default(""),
    metadata: text("metadata", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    chunkCount: integer("chunk_count").notNull(),
    /** SHA-256 of title + text: re-ingesting an unchanged document is a no-op. */
    contentHash: text("content_hash").notNull(),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [uniqueIndex("rag_documents_user_doc_idx").on(t.userId, t.docId)],
);

export const ragChunks = sqliteTable(
  "rag_chunks",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    documentId: integer("document_id")
      .notNull()
      .references(() => ragDocuments.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull(),
    position: integer("position").notNull(),
    /** The document title, indexed with every chunk (it is often the best evidence). */
    title: text("title").notNull(),
    content: text("content").notNull(),
    tokenCount: integer("token_count").notNull(),
    /** Which embedder made `vector`; vectors of another embedder are not comparable. */
    embedder: text("embedder").notNull(),
    /** int8-quantised unit vector, base64; NULL when the vectors live in Vectorize. */
    vector: text("vector"),
  },
  (t) => [index("rag_chunks_user_idx").on(t.userId, t.id), index("rag_chunks_document_idx").on(t.documentId)],
);

/** Entities found at ingest: `name` is the normalised key (stemmed, lower-case), `label` how it was written. */
export const ragEntities = sqliteTable(
  "rag_entities",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    label: text("label").notNull(),
    kind: text("kind", { enum: ["acronym", "name", "concept"] }).notNull(),
  },
  (t) => [uniqueIndex("rag_entities_user_name_idx").on(t.userId, t.name)],
);

export const ragMentions = sqliteTable(
  "rag_mentions",
  {
    entityId: integer("entity_id")
      .notNull()
      .references(() => ragEntities.id, { onDelete: "cascade" }),
    chunkId: integer("chunk_id")
      .notNull()
      .references(() => ragChunks.id, { onDelete: "cascade" }),
    count: integer("count").notNull(),
  },
  (t) => [uniqueIndex("rag_mentions_entity_chunk_idx").on(t.entityId, t.chunkId), index("rag_mentions_chunk_idx").on(t.chunkId)],
);

/** Co-occurrence of two entities in one sentence of one chunk; source_id < target_id. */
export const ragRelations = sqliteTable(
  "rag_relations",
  {
    chunkId: integer("chunk_id")
      .notNull()
      .references(() => ragChunks.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull(),
    sourceId: integer("source_id").notNull(),
    targetId: integer("target_id").notNull(),
    weight: integer("weight").notNull(),
  },
  (t) => [
    index("rag_relations_source_idx").on(t.sourceId),
    index("rag_relations_target_idx").on(t.targetId),
    index("rag_relations_chunk_idx").on(t.chunkId),
    index("rag_relations_user_idx").on(t.userId),
  ],
);

/** Communities of the entity graph with extractive summaries, rebuilt when `collection_version` is stale. */
export const ragCommunities = sqliteTable(
  "rag_communities",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    collectionVersion: integer("collection_version").notNull(),
    title: text("title").notNull(),
    summary: text("summary").notNull(),
    /** JSON: [{ doc_id, weight }] best first. */
    documents: text("documents", { mode: "json" }).$type<{ doc_id: string; weight: number }[]>().notNull(),
    entityCount: integer("entity_count").notNull(),
  },
  (t) => [index("rag_communities_user_idx").on(t.userId, t.collectionVersion)],
);

/** One row per RAG query (or refused query), for health and latency figures; pruned by retention. */
export const ragQueryLog = sqliteTable(
  "rag_query_log",
  {
    requestId: text("request_id").primaryKey(),
    userId: integer("user_id").notNull(),
    pipeline: text("pipeline").notNull(),
    startedAt: text("started_at").notNull(),
    outcome: text("outcome", { enum: ["ok", "error", "busy", "timeout"] }).notNull(),
    errorCode: text("error_code"),
    totalMs: integer("total_ms").notNull(),
    retrievalMs: integer("retrieval_ms").notNull(),
    generationMs: integer("generation_ms").notNull(),
    tokensUsed: integer("tokens_used").notNull(),
  },
  (t) => [
    index("rag_query_log_started_idx").on(t.startedAt),
    index("rag_query_log_pipeline_idx").on(t.pipeline, t.startedAt),
    // Health shows each user their own queries only.
    index("rag_query_log_user_idx").on(t.userId, t.startedAt),
  ],
);

// ---- Gateway: upstream MCP sources and their discovered tools. See docs/storage.md. ----

/**
 * One upstream MCP server registered by a user. `slug` prefixes its tools on /mcp
 * (`<slug>__<tool>`), so it is unique per owner and never contains `__`.
 * `mcp_env_vars` is JSON `[{ name, secret, value }]`; a secret's value is AES-GCM ciphertext
 * (workers/gateway/sources/secrets.ts), never plaintext.
 */
export const sources = sqliteTable(
  "sources",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    sourceType: text("source_type", { enum: ["mcp"] })
      .notNull()
      .default("mcp"),
    /** What the source is for, as its owner wrote it (the original provider's `description`). */
    description: text("description"),
    /** The MCP endpoint calls reach; for a bridge plugin, `<bridge>/plugins/<name>/mcp`. */
    mcpServerUrl: text("mcp_server_url").notNull(),
    /** A plugin of `mcp-edge bridge --plugins`, as registered (its last path segment names it); NULL otherwise. */
    mcpPluginDir: text("mcp_plugin_dir"),
    mcpTransportType: text("mcp_transport_type", { enum: ["streamable_http", "sse", "stdio"] })
      .notNull()
      .default("streamable_http"),
    mcpLifecycleMode: text("mcp_lifecycle_mode", { enum: ["transient", "singleton"] })
      .notNull()
      .default("transient"),
    mcpEnvVars: text("mcp_env_vars", { mode: "json" })
      .$type<StoredEnvVar[]>()
      .notNull()
      .default(sql`'[]'`),
    timeoutMs: integer("timeout_ms").notNull().default(30_000),
    enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
    /** stdio sources (run by `mcp-edge bridge`): launch details, stored and shown, never executed here. */
    mcpCommand: text("mcp_command"),
    mcpArgs: text("mcp_args", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    mcpRuntimeHint: text("mcp_runtime_hint"),
    /** The plugin.json / server.json object given at registration (workers/gateway/registry/manifest.ts). */
    manifest: text("manifest", { mode: "json" }).$type<Record<string, unknown>>(),
    /** stdio only: the bridge's bearer token, sealed like a secret env var; never returned. */
    bridgeToken: text("bridge_token"),
    /** Left out of this owner's /mcp list (calls refused), but still discovered and health-checked. */
    hidden: integer("hidden", { mode: "boolean" }).notNull().default(false),
    lastDiscoveredAt: text("last_discovered_at"),
    lastDiscoveryError: text("last_discovery_error"),
    /** When discovery last ran, successful or not. */
    lastDiscoveryAttemptAt: text("last_discovery_attempt_at"),
    /**
     * When the source's GatewaySource object has its rediscovery alarm set for, as the object last
     * said (decision 0067). NULL: never armed (a source from before alarms). The cron re-arms an
     * enabled source whose time is NULL or long past: its alarm is missing.
     */
    rediscoverAt: text("rediscover_at"),
    /** Alias clashes and other non-fatal findings of the last successful discovery (JSON array of strings). */
    discoveryWarnings: text("discovery_warnings", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
    /** From the upstream's tools/list cache hint (2026-07-28): rediscover once this has passed. */
    inventoryStaleAt: text("inventory_stale_at"),
    /**
     * What the last successful discovery learned: `stateless` (2026-07-28, or a 2025-era server that
     * gave no session id after initialize) is called straight from the Worker, `sessionful` (a
     * session id, legacy SSE, stdio through the bridge) through the source's Durable Object.
     * NULL until a discovery succeeds (such a source has no tools to call).
     */
    upstreamKind: text("upstream_kind", { enum: ["stateless", "sessionful"] }),
    /** The protocol revision negotiated at that discovery. */
    protocolVersion: text("protocol_version"),
    /** A 2026-07-28 stateless upstream's `server/discover` result (JSON), adopted by each call instead of a handshake. */
    discoverResult: text("discover_result", { mode: "json" }).$type<Record<string, unknown>>(),
    /**
     * `oauth`: the upstream answered 401 with MCP authorization (Protected Resource Metadata), so
     * each call carries the owner's own upstream token (source_authorizations); `none`: only the
     * source's own headers. Read by the one call lookup, so other sources pay nothing for OAuth.
     */
    upstreamAuth: text("upstream_auth", { enum: ["none", "oauth"] })
      .notNull()
      .default("none"),
    createdAt: text("created_at").notNull().default(now),
    updatedAt: text("updated_at").notNull().default(now),
  },
  (t) => [uniqueIndex("sources_user_slug_idx").on(t.userId, t.slug), index("sources_rediscover_at_idx").on(t.enabled, t.rediscoverAt)],
);

export interface StoredEnvVar {
  name: string;
  secret: boolean;
  /** Plaintext for non-secret variables; `v1.<iv>.<ciphertext>` (base64url) for secrets. */
  value: string;
}

/**
 * The tool inventory of a source as last discovered: what /mcp lists with no upstream round trip.
 * `alias` is the name the gateway exposes after the slug; it stays the same across refreshes.
 */
export const sourceTools = sqliteTable(
  "source_tools",
  {
    sourceId: integer("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    alias: text("alias").notNull(),
    title: text("title"),
    description: text("description").notNull().default(""),
    inputSchema: text("input_schema", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    outputSchema: text("output_schema", { mode: "json" }).$type<Record<string, unknown>>(),
    /** The upstream's own annotations, text cleaned: its claims, never served as the gateway's (decision 0049). */
    annotations: text("annotations", { mode: "json" })
      .$type<Record<string, unknown>>()
      .notNull()
      .default(sql`'{}'`),
    /**
     * The upstream's MCP Apps `_meta.ui` (resourceUri in the source's own words, csp, visibility …),
     * listed on /mcp with its resourceUri named for /mcp (decision 0068); null for a tool without a UI.
     */
    ui: text("ui", { mode: "json" }).$type<Record<string, unknown>>(),
    discoveredAt: text("discovered_at").notNull(),
    /**
     * SHA-256 of the definition as stored (name, title, description, schemas, annotations; canonical
     * JSON): the tool is listed and callable only while a pin of the same name holds this hash.
     * '' for rows stored before pinning (migration 0014), until their next discovery.
     */
    definitionHash: text("definition_hash").notNull().default(""),
    /** When this definition (this hash) was first discovered: when a change was detected. */
    definitionSince: text("definition_since"),
    /** UTF-8 bytes of its name, title, description, schemas and annotations: what it adds to its owner's listing. */
    definitionBytes: integer("definition_bytes").notNull().default(0),
    /** What cleaning and bounding changed in its text at the last discovery (JSON array of strings). */
    textWarnings: text("text_warnings", { mode: "json" })
      .$type<string[]>()
      .notNull()
      .default(sql`'[]'`),
  },
  (t) => [uniqueIndex("source_tools_name_idx").on(t.sourceId, t.name), uniqueIndex("source_tools_alias_idx").on(t.sourceId, t.alias)],
);

/**
 * The definitions the owner approved, one per tool of a source (decision 0049): registering the
 * source approves what its first successful discovery lists; any later change — or a tool new since
 * — waits for the owner's approval over REST or in the console. A pin of a tool the upstream no
 * longer lists is dropped. `definition` is kept so a held change can be shown against it.
 */
export const sourceToolPins = sqliteTable(
  "source_tool_pins",
  {
    sourceId: integer("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    /** The upstream's tool name (source_tools.name). */
    name: text("name").notNull(),
    /** The approved definition's hash; '' for a definition pinned by migration 0014, hashed at the next discovery. */
    definitionHash: text("definition_hash").notNull(),
    /** The approved definition: {title, description, input_schema, output_schema, annotations}. */
    definition: text("definition", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    approvedAt: text("approved_at").notNull(),
  },
  (t) => [uniqueIndex("source_tool_pins_name_idx").on(t.sourceId, t.name)],
);

/**
 * Extra names of renamed tools: when a rediscovery finds that the upstream renamed a tool (same
 * description and input schema, new name), the old alias keeps calling it. Never listed on /mcp;
 * never shadows a tool's own alias (such a clash is not created and is reported instead).
 */
export const sourceToolAliases = sqliteTable(
  "source_tool_aliases",
  {
    sourceId: integer("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    alias: text("alias").notNull(),
    /** The upstream name of the tool the alias now calls (a `source_tools.name` of the same source). */
    toolName: text("tool_name").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("source_tool_aliases_alias_idx").on(t.sourceId, t.alias)],
);

/**
 * Tools a user hid from their own /mcp list: a built-in tool (`source_id` NULL, `tool` its name)
 * or a source's tool (`tool` its alias). Hidden tools are not listed and refuse calls.
 */
export const gatewayHiddenTools = sqliteTable(
  "gateway_hidden_tools",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sourceId: integer("source_id").references(() => sources.id, { onDelete: "cascade" }),
    tool: text("tool").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  // NULLs are distinct in a SQLite unique index, so built-ins are keyed by source 0.
  (t) => [uniqueIndex("gateway_hidden_tools_idx").on(t.userId, sql`coalesce(${t.sourceId}, 0)`, t.tool)],
);

/**
 * A source's upstream connection (workers/upstream-connections/): what discovery learned of its
 * upstream's protection and, once its owner connected, their upstream client registration and tokens — both
 * sealed with SOURCE_SECRETS_KEY, bound to the owner and the source, never returned by any API.
 * One row per source (sources are per user), so two users of the same upstream never share one.
 */
export const sourceAuthorizations = sqliteTable("source_authorizations", {
  sourceId: integer("source_id")
    .primaryKey()
    .references(() => sources.id, { onDelete: "cascade" }),
  userId: integer("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  /** needs_authorization: never connected or disconnected; connected; authorization_expired: a refresh was refused. */
  status: text("status", { enum: ["needs_authorization", "connected", "authorization_expired"] }).notNull(),
  /** From the 401 challenge or the well-known path (RFC 9728). */
  resourceMetadataUrl: text("resource_metadata_url"),
  /** The protected resource's identifier, sent as RFC 8707 `resource`. */
  resource: text("resource"),
  /** The authorization server's issuer (RFC 8414): tokens and client registrations are bound to it. */
  authorizationServer: text("authorization_server"),
  scopesSupported: text("scopes_supported", { mode: "json" })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`),
  /** The SDK's OAuthDiscoveryState (public metadata documents), kept so a callback and a refresh skip discovery. */
  discoveryState: text("discovery_state", { mode: "json" }).$type<Record<string, unknown>>(),
  /** How mcp-edge identified itself: metadata_document (its CIMD), dynamic_registration, or manual (the user's client id). */
  clientIdentification: text("client_identification", { enum: ["metadata_document", "dynamic_registration", "manual"] }),
  /** Sealed JSON: the client information (client_id, a secret when the server issued or the user gave one). */
  clientInformation: text("client_information"),
  /** Sealed JSON: access token, refresh token, scope, issuer. */
  tokens: text("tokens"),
  /** When the access token expires (ISO); null when the server gave no lifetime. */
  tokenExpiresAt: text("token_expires_at"),
  grantedScope: text("granted_scope"),
  redirectUri: text("redirect_uri"),
  connectedAt: text("connected_at"),
  refreshedAt: text("refreshed_at"),
  /** Why the last connect or refresh failed (no token values). */
  lastError: text("last_error"),
  /**
   * When a refresh may be tried again (ISO), after the authorization server answered one for now
   * with Retry-After (honoured up to 5 minutes); null when it asked for no pause. Its own column,
   * so other writes to the row (a failed connect's note, a new updated_at) neither end nor move it.
   */
  refreshRetryAt: text("refresh_retry_at"),
  updatedAt: text("updated_at").notNull().default(now),
});

/**
 * Authorization flows in progress, one per Connect: single use (deleted when the callback uses it),
 * short-lived, bound to the user and the source that started them and — once the start link was
 * opened — to that browser. Keys are SHA-256 hashes of the link id and of the OAuth `state`; the PKCE
 * verifier and the authorization URL are sealed.
 */
export const upstreamOauthFlows = sqliteTable(
  "upstream_oauth_flows",
  {
    stateHash: text("state_hash").primaryKey(),
    startHash: text("start_hash").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    sourceId: integer("source_id")
      .notNull()
      .references(() => sources.id, { onDelete: "cascade" }),
    /** Sealed JSON: { verifier, authorizationUrl }. */
    secrets: text("secrets").notNull(),
    /** SHA-256 of the browser binding cookie, set when the start link is opened. */
    browserHash: text("browser_hash"),
    scope: text("scope"),
    /** Where the callback sends the user: the console, or a plain page. */
    returnTo: text("return_to", { enum: ["console", "page"] }).notNull(),
    expiresAt: text("expires_at").notNull(),
    createdAt: text("created_at").notNull().default(now),
  },
  (t) => [uniqueIndex("upstream_oauth_flows_start_idx").on(t.startHash), index("upstream_oauth_flows_expiry_idx").on(t.expiresAt)],
);
