/**
 * What every request handler may use, built once per request by the middleware: the
 * authenticated user and the domain services. Routes and MCP servers both read it.
 */
import type { Access } from "../auth/access";
import type { AuthUser } from "../auth/principal";
import { queueEventSink } from "../events/event-sink";
import { queueAuditSink } from "../gateway/gateway-audit";
import { SourceService } from "../gateway/sources.service";
import { type Db, openDb } from "../lib/db";
import { RagService } from "../rag/rag.service";
import { TaskService } from "../tasks/tasks.service";
import { ThinkingService } from "../thinking/thinking.service";

export interface Services {
  db: Db;
  tasks: TaskService;
  rag: RagService;
  /** Gateway sources (upstream MCP servers) and calls routed to them. */
  sources: SourceService;
  /** Each user's sequential-thinking history, in their own Durable Object (`forUser`). */
  thinking: ThinkingService;
}

/** Services are made on first use: a request to one server never pays for the others. */
export function createServices(env: Env, waitUntil: (promise: Promise<unknown>) => void): Services {
  const db = openDb(env.DB);
  let tasks: TaskService | undefined;
  let rag: RagService | undefined;
  let sources: SourceService | undefined;
  let thinking: ThinkingService | undefined;
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
  };
}

export interface AppVariables {
  services: Services;
  user: AuthUser;
  /** Who is calling (user, scopes, how) and the request's 403 step-up answer. */
  access: Access;
}

export type AppEnv = { Bindings: Env; Variables: AppVariables };
