/**
 * The composition root: the domain services every adapter (REST routes, MCP tools, the gateway)
 * works through, wired to the Worker's bindings. The HTTP middleware builds them once per
 * request; MCP tools depend on the `Services` type here, not on the HTTP layer that builds them.
 */
import { queueEventSink } from "./events/event-sink";
import { queueAuditSink } from "./gateway/gateway-audit";
import { SourceService } from "./gateway/sources.service";
import { type Db, openDb } from "./lib/db";
import { RateLimitService } from "./limits/rate-limits.service";
import { RagService } from "./rag/rag.service";
import { TaskService } from "./tasks/tasks.service";
import { ThinkingService } from "./thinking/thinking.service";

export interface Services {
  db: Db;
  tasks: TaskService;
  rag: RagService;
  /** Gateway sources (upstream MCP servers) and calls routed to them. */
  sources: SourceService;
  /** Each user's sequential-thinking history, in their own Durable Object (`forUser`). */
  thinking: ThinkingService;
  /** Each user's budgets of tool calls and REST requests (Cloudflare's Rate Limiting bindings). */
  rateLimits: RateLimitService;
}

/** Services are made on first use: a request to one server never pays for the others. */
export function createServices(env: Env, waitUntil: (promise: Promise<unknown>) => void): Services {
  const db = openDb(env.DB);
  let tasks: TaskService | undefined;
  let rag: RagService | undefined;
  let sources: SourceService | undefined;
  let thinking: ThinkingService | undefined;
  let rateLimits: RateLimitService | undefined;
  return {
    db,
    get tasks() {
      return (tasks ??= new TaskService({ db, events: queueEventSink(env.EVENTS, waitUntil) }));
    },
    get rag() {
      return (rag ??= new RagService(db, env, waitUntil));
    },
    get sources() {
      return (sources ??= new SourceService({ db, env, audit: queueAuditSink(env.EVENTS, waitUntil) }));
    },
    get thinking() {
      return (thinking ??= new ThinkingService(env.THINKING));
    },
    get rateLimits() {
      return (rateLimits ??= new RateLimitService(env));
    },
  };
}
