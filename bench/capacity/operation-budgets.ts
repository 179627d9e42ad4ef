/**
 * What one call of each kind costs in Cloudflare operations, measured through counting wrappers of
 * the real bindings (test/workerd/capacity/, test/with-upstreams/capacity/). The tests assert these numbers exactly: a change in what a
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

export function noOperations(): OperationCounts {
  return ops(0, 0, 0, 0, 0, {}, 0, 0);
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

/** One row of the table: its arguments in the order of OperationCounts. */
function ops(
  d1_queries: number,
  d1_writes: number,
  d1_rows_read: number,
  d1_rows_written: number,
  queue_messages: number,
  do_requests: OperationCounts["do_requests"],
  kv_reads: number,
  kv_writes: number,
): OperationCounts {
  return { d1_queries, d1_writes, d1_rows_read, d1_rows_written, queue_messages, do_requests, kv_reads, kv_writes };
}

// ops(D1 statements, of them writes, rows read, rows written, queue messages, Durable Object requests, KV reads, KV writes)
export const CALL_BUDGETS: Record<CallKind, CallBudget> = {
  tasks_tools_list: {
    what: "tools/list on /mcp/tasks",
    cold: ops(1, 0, 2, 0, 0, {}, 0, 0),
    warm: ops(0, 0, 0, 0, 0, {}, 0, 0),
  },
  list_tasks: {
    what: "tools/call list_tasks on /mcp/tasks (a user with 3 tasks)",
    cold: ops(2, 0, 5, 0, 0, {}, 0, 0),
    warm: ops(1, 0, 3, 0, 0, {}, 0, 0),
  },
  add_task: {
    what: "tools/call add_task on /mcp/tasks",
    cold: ops(3, 2, 12, 9, 1, {}, 0, 0),
    warm: ops(2, 2, 11, 9, 1, {}, 0, 0),
  },
  update_task: {
    what: "tools/call update_task on /mcp/tasks (a new title)",
    cold: ops(3, 2, 7, 6, 1, {}, 0, 0),
    warm: ops(2, 2, 5, 6, 1, {}, 0, 0),
  },
  complete_task: {
    what: "tools/call complete_task on /mcp/tasks",
    cold: ops(4, 2, 8, 5, 1, {}, 0, 0),
    warm: ops(3, 2, 6, 5, 1, {}, 0, 0),
  },
  rest_list_tasks: {
    what: "GET /api/tasks with an API token (a user with 3 tasks)",
    cold: ops(2, 0, 6, 0, 0, {}, 0, 0),
    warm: ops(1, 0, 4, 0, 0, {}, 0, 0),
  },
  rest_get_task: {
    what: "GET /api/tasks/:id with an API token",
    cold: ops(2, 0, 3, 0, 0, {}, 0, 0),
    warm: ops(1, 0, 1, 0, 0, {}, 0, 0),
  },
  list_tasks_oauth: {
    what: "tools/call list_tasks on /mcp/tasks with an OAuth access token (a user with 3 tasks)",
    cold: ops(2, 0, 5, 0, 0, {}, 1, 0),
    warm: ops(1, 0, 4, 0, 0, {}, 0, 0),
  },
  gateway_tools_list: {
    what: "tools/list on /mcp (the built-in tools and one upstream source)",
    cold: ops(3, 0, 5, 0, 0, {}, 0, 0),
    warm: ops(2, 0, 3, 0, 0, {}, 0, 0),
  },
  gateway_builtin_call: {
    what: "tools/call list_tasks on /mcp (a built-in tool through the gateway)",
    cold: ops(3, 0, 6, 0, 1, {}, 0, 0),
    warm: ops(2, 0, 4, 0, 1, {}, 0, 0),
  },
  gateway_upstream_call: {
    what: "tools/call <source>__echo on /mcp (a stateless upstream source, the test fixture server)",
    cold: ops(3, 0, 6, 0, 1, { GATEWAY_SOURCE: 1 }, 0, 0),
    warm: ops(1, 0, 0, 0, 1, { GATEWAY_SOURCE: 1 }, 0, 0),
  },
  rag_query: {
    what: "tools/call rag_basic on /mcp/rag (a user with the 6-document test corpus)",
    cold: ops(8, 2, 164, 5, 0, { RAG_GATE: 2 }, 0, 0),
    warm: ops(5, 2, 35, 5, 0, { RAG_GATE: 2 }, 0, 0),
  },
};

/** The EVENTS consumer, given a full batch (max_batch_size in wrangler.toml): its D1 work for the whole batch. */
export const CONSUMER_BATCH_SIZE = 50;
export const CONSUMER_BATCH_BUDGET: Pick<OperationCounts, "d1_queries" | "d1_writes" | "d1_rows_read" | "d1_rows_written"> = {
  d1_queries: 5,
  d1_writes: 5,
  d1_rows_read: 1,
  d1_rows_written: 200,
};
