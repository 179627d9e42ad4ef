/**
 * What one call of each kind costs in Cloudflare operations, measured through counting wrappers of
 * the real bindings (test/capacity/). The tests assert these numbers exactly: a change in what a
 * call does fails them until this table is updated on purpose, in the same commit that changes the
 * call. `npm run capacity` (bin/capacity.ts) multiplies them by a mix of calls.
 *
 * `cold`: the call made by a user none of the isolate's caches know (a token not in the token
 * cache, the gateway's per-user and per-source caches empty): what most calls cost when a million
 * users are spread over many isolates. `warm`: the same call again at once, every cache holding.
 */

/** The Durable Object namespaces the Worker binds (wrangler.toml). */
export type DurableObjectBinding = "RAG_GATE" | "THINKING" | "GATEWAY_SOURCE" | "UPSTREAM_REFRESH_LEASE";

export interface OperationCounts {
  /** D1 statements (a batch of n statements counts n): each runs on the one primary unless it is a read sent to a replica. */
  d1_queries: number;
  /** Of those, the statements that are not reads (INSERT, UPDATE, DELETE …): the primary's alone. */
  d1_writes: number;
  /** Rows D1 reported read and written (each statement's meta.rows_read, meta.rows_written; index rows included). */
  d1_rows_read: number;
  d1_rows_written: number;
  /** Messages sent to the EVENTS queue (a sendBatch of n counts n). */
  queue_messages: number;
  /** Requests (RPC calls or fetches) to Durable Objects, per namespace. */
  do_requests: Partial<Record<DurableObjectBinding, number>>;
  /** KV operations on OAUTH_KV: get (and list) and put (and delete). */
  kv_reads: number;
  kv_writes: number;
}

export interface CallBudget {
  what: string;
  cold: OperationCounts;
  warm: OperationCounts;
}

/** The kinds of call the capacity model takes in a mix. */
export type CallKind =
  | "tasks_tools_list"
  | "list_tasks"
  | "add_task"
  | "update_task"
  | "complete_task"
  | "rest_list_tasks"
  | "rest_get_task"
  | "list_tasks_oauth"
  | "gateway_tools_list"
  | "gateway_builtin_call"
  | "gateway_upstream_call"
  | "rag_query";

const none = { queue_messages: 0, do_requests: {}, kv_reads: 0, kv_writes: 0 } as const;

export const CALL_BUDGETS: Record<CallKind, CallBudget> = {
  tasks_tools_list: {
    what: "tools/list on /mcp/tasks",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  list_tasks: {
    what: "tools/call list_tasks on /mcp/tasks (a user with 3 tasks)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  add_task: {
    what: "tools/call add_task on /mcp/tasks",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  update_task: {
    what: "tools/call update_task on /mcp/tasks (a new title)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  complete_task: {
    what: "tools/call complete_task on /mcp/tasks",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  rest_list_tasks: {
    what: "GET /api/tasks with an API token (a user with 3 tasks)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  rest_get_task: {
    what: "GET /api/tasks/:id with an API token",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  list_tasks_oauth: {
    what: "tools/call list_tasks on /mcp/tasks with an OAuth access token (a user with 3 tasks)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  gateway_tools_list: {
    what: "tools/list on /mcp (the built-in tools and one upstream source)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  gateway_builtin_call: {
    what: "tools/call list_tasks on /mcp (a built-in tool through the gateway)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  gateway_upstream_call: {
    what: "tools/call <source>__echo on /mcp (a stateless upstream source, the test fixture server)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
  rag_query: {
    what: "tools/call rag_basic on /mcp/rag (a user with the 6-document test corpus)",
    cold: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
    warm: { d1_queries: 0, d1_writes: 0, d1_rows_read: 0, d1_rows_written: 0, ...none },
  },
};

/** The EVENTS consumer, given a full batch (max_batch_size in wrangler.toml): its D1 work for the whole batch. */
export const CONSUMER_BATCH_SIZE = 50;
export const CONSUMER_BATCH_BUDGET: Pick<OperationCounts, "d1_queries" | "d1_writes" | "d1_rows_read" | "d1_rows_written"> = {
  d1_queries: 0,
  d1_writes: 0,
  d1_rows_read: 0,
  d1_rows_written: 0,
};
