/**
 * The Worker's real bindings behind counters: every D1 statement (and the rows D1 says it read and
 * wrote), every queue message, every Durable Object request and every KV operation a request makes
 * through its `env`. Nothing is stood in for: each call goes on to the real local binding, so the
 * Worker behaves exactly as it does everywhere else; the wrappers only count on the way.
 *
 * Not seen here, by design: what Durable Objects and the Worker's other entry points do with their
 * own `env` (a Durable Object's own SQLite storage is per object and scales with the objects; no
 * object reaches D1, docs/architecture.md), and what the EVENTS consumer writes (measured on its own,
 * test/workerd/capacity/consumer-budgets.test.ts).
 */
import { type DurableObjectBinding, noOperations, type OperationCounts } from "../../../bench/capacity/operation-budgets";

export interface CountingEnv {
  /** The Worker's `env` with DB, EVENTS, OAUTH_KV and the Durable Object namespaces counted. */
  env: Env;
  /** What was counted since the last `reset`. */
  counts(): OperationCounts;
  reset(): void;
}

/** Calls `onCall(method, args)` for every method called on `target`, then calls it on the real object. */
function countCalls<T extends object>(target: T, onCall: (method: string, args: unknown[]) => unknown): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property);
      // A stub answers any property name; `then` is asked by `await`, not a request.
      if (typeof value !== "function" || typeof property !== "string" || property === "then") return value;
      return (...args: unknown[]) => {
        const replaced = onCall(property, args);
        const result: unknown = Reflect.apply(value, object, args);
        return replaced === undefined ? result : replaced;
      };
    },
  });
}

interface D1Fetcher {
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response>;
}

function isFetcher(value: unknown): value is D1Fetcher {
  return typeof value === "object" && value !== null && typeof Reflect.get(value, "fetch") === "function";
}

interface SentStatement {
  sql?: unknown;
}

interface StatementResult {
  meta?: { rows_read?: unknown; rows_written?: unknown };
}

/** A statement that only reads: SELECT, or a WITH that changes nothing. Everything else runs as a write on the primary. */
function isRead(sql: string): boolean {
  return /^\s*select\b/i.test(sql) || (/^\s*with\b/i.test(sql) && !/\b(insert|update|delete|replace)\b/i.test(sql));
}

/**
 * D1's binding sends every statement — run, all, first, raw, batch, exec, sessions — to its
 * fetcher as JSON and gets each statement's `meta` back (rows_read, rows_written); `raw()` and
 * `first()` drop that meta before the caller sees it. So the count is taken one level down: a
 * D1Database of workerd's own class, built over a fetcher that reads what goes by.
 */
function countingD1(db: D1Database, counts: OperationCounts): D1Database {
  const fetcher: unknown = Reflect.get(db, "fetcher");
  if (!isFetcher(fetcher)) {
    throw new Error("workerd's D1Database holds no `fetcher` any more: test/workerd/capacity/counting-env.ts needs a new way in");
  }
  const counting: D1Fetcher = {
    async fetch(input, init) {
      const response = await fetcher.fetch(input, init);
      const sent: SentStatement | SentStatement[] = typeof init?.body === "string" ? JSON.parse(init.body) : [];
      for (const statement of Array.isArray(sent) ? sent : [sent]) {
        counts.d1_queries += 1;
        if (typeof statement.sql !== "string" || !isRead(statement.sql)) counts.d1_writes += 1;
      }
      const answer: StatementResult | StatementResult[] = await response.clone().json();
      for (const result of Array.isArray(answer) ? answer : [answer]) {
        counts.d1_rows_read += Number(result.meta?.rows_read ?? 0);
        counts.d1_rows_written += Number(result.meta?.rows_written ?? 0);
      }
      return response;
    },
  };
  // workerd's own D1Database class, built over the counting fetcher (its constructor takes the fetcher).
  const d1: D1Database = Reflect.construct(db.constructor, [counting]);
  if (!(d1 instanceof db.constructor) || Reflect.get(d1, "fetcher") !== counting) {
    throw new Error("workerd's D1Database is no longer built over a fetcher: test/workerd/capacity/counting-env.ts needs a new way in");
  }
  return d1;
}

function countingQueue(queue: Queue, counts: OperationCounts): Queue {
  return countCalls(queue, (method, args) => {
    if (method === "send") counts.queue_messages += 1;
    if (method === "sendBatch") {
      if (!Array.isArray(args[0])) throw new Error("sendBatch was given messages that are not an array: count them here");
      counts.queue_messages += args[0].length;
    }
  });
}

function countingKv(kv: KVNamespace, counts: OperationCounts): KVNamespace {
  return countCalls(kv, (method, args) => {
    const keys = Array.isArray(args[0]) ? args[0].length : 1;
    if (method === "get" || method === "getWithMetadata" || method === "list") counts.kv_reads += keys;
    if (method === "put" || method === "delete") counts.kv_writes += 1;
  });
}

/** Each call on a stub the namespace hands out (an RPC method or fetch) is one request to the object. */
function countingNamespace<T extends Rpc.DurableObjectBranded | undefined>(
  binding: DurableObjectBinding,
  namespace: DurableObjectNamespace<T>,
  counts: OperationCounts,
) {
  const stubCounted = (stub: DurableObjectStub<T>) =>
    countCalls(stub, () => {
      counts.do_requests[binding] = (counts.do_requests[binding] ?? 0) + 1;
    });
  return new Proxy(namespace, {
    get(object, property) {
      if (property === "get") return (...args: Parameters<typeof namespace.get>) => stubCounted(object.get(...args));
      if (property === "getByName") return (...args: Parameters<typeof namespace.getByName>) => stubCounted(object.getByName(...args));
      const value: unknown = Reflect.get(object, property);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}

export function countingEnv(base: Env): CountingEnv {
  const counts = noOperations();
  const env: Env = {
    ...base,
    DB: countingD1(base.DB, counts),
    EVENTS: countingQueue(base.EVENTS, counts),
    OAUTH_KV: countingKv(base.OAUTH_KV, counts),
    RAG_GATE: countingNamespace("RAG_GATE", base.RAG_GATE, counts),
    THINKING: countingNamespace("THINKING", base.THINKING, counts),
    GATEWAY_SOURCE: countingNamespace("GATEWAY_SOURCE", base.GATEWAY_SOURCE, counts),
    UPSTREAM_REFRESH_LEASE: countingNamespace("UPSTREAM_REFRESH_LEASE", base.UPSTREAM_REFRESH_LEASE, counts),
  };
  return {
    env,
    counts: () => ({ ...counts, do_requests: { ...counts.do_requests } }),
    reset: () => Object.assign(counts, noOperations()),
  };
}
