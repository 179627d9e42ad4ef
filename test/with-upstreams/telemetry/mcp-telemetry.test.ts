/**
 * One Analytics Engine data point and one MCP span per MCP POST (decision 0064), read through
 * recording wrappers of the real bindings at the test's edge: the app gets the real MCP_ANALYTICS
 * dataset wrapped so each point it writes is also kept here, and an execution context whose
 * `tracing` is the runtime's own, wrapped so each span's name, attributes and status are kept.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env, tracing } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../../workers/app";
import { MCP_BLOBS, MCP_DOUBLES } from "../../../workers/telemetry/mcp-data-point";
import type { McpSpan, McpTracer } from "../../../workers/telemetry/mcp-span";
import { registerTasksSource } from "../../helpers/gateway";
import { eraOptions } from "../../helpers/mcp";
import { createUser, type TestUser, withScopedToken } from "../../helpers/users";

interface RecordedSpan {
  name: string;
  attributes: Record<string, string | number | boolean | undefined>;
  status: string | undefined;
  ended: boolean;
}

/** A data point as an operator's SQL sees it: each blob and double by its documented column name. */
type Point = Record<(typeof MCP_BLOBS)[number], string> & Record<(typeof MCP_DOUBLES)[number], number> & { index: string };

function recordingDataset(real: AnalyticsEngineDataset, points: Point[]): AnalyticsEngineDataset {
  return {
    writeDataPoint(point) {
      const named: Record<string, unknown> = { index: point?.indexes?.[0] };
      MCP_BLOBS.forEach((name, i) => (named[name] = point?.blobs?.[i]));
      MCP_DOUBLES.forEach((name, i) => (named[name] = point?.doubles?.[i]));
      points.push(named as Point);
      real.writeDataPoint(point);
    },
  };
}

function recordingTracer(real: McpTracer, spans: RecordedSpan[]): McpTracer {
  return {
    startActiveSpan(name, callback) {
      return real.startActiveSpan(name, (span) => {
        const recorded: RecordedSpan = { name, attributes: {}, status: undefined, ended: false };
        spans.push(recorded);
        const wrapped: McpSpan = {
          setAttributes(attributes) {
            Object.assign(recorded.attributes, attributes);
            return span.setAttributes(attributes);
          },
          updateName(next) {
            recorded.name = next;
            return span.updateName(next);
          },
          setStatus(status) {
            recorded.status = status.code;
            return span.setStatus(status);
          },
          end() {
            recorded.ended = true;
            span.end();
          },
        };
        return callback(wrapped);
      });
    },
  };
}

interface Observed {
  points: Point[];
  spans: RecordedSpan[];
  /** POSTs the app served. */
  posts: number;
  fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
  /** Waits for the background work (the answers' copies read, the points written, the spans ended). */
  settle(): Promise<void>;
}

function observedApp(bindings: Partial<Env> = {}): Observed {
  const app = createApp();
  const ctx = createExecutionContext();
  const observed: Observed = {
    points: [],
    spans: [],
    posts: 0,
    async fetch(input, init) {
      const request = new Request(input, init);
      request.headers.set("host", new URL(request.url).host);
      if (request.method === "POST") observed.posts += 1;
      const handlerCtx = {
        waitUntil: (promise: Promise<unknown>) => ctx.waitUntil(promise),
        passThroughOnException: () => ctx.passThroughOnException(),
        props: ctx.props,
        tracing: recordingTracer(tracing, observed.spans),
      };
      return app.fetch(request, appEnv, handlerCtx);
    },
    settle: () => waitOnExecutionContext(ctx),
  };
  const appEnv: Env = { ...env, MCP_ANALYTICS: recordingDataset(env.MCP_ANALYTICS, observed.points), ...bindings };
  return observed;
}

async function connect(observed: Observed, path: string, user: TestUser): Promise<Client> {
  const client = new Client({ name: "telemetry-tests", version: "4.2.0" }, eraOptions("2026-07-28"));
  await client.connect(
    new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
      fetch: observed.fetch,
      requestInit: { headers: { authorization: `Bearer ${user.token}` } },
    }),
  );
  return client;
}

function rpc(observed: Observed, path: string, user: TestUser, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return observed.fetch(`http://localhost${path}`, {
    method: "POST",
    headers: { ...user.headers, "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

const only = <T>(items: T[]): T => {
  expect(items).toHaveLength(1);
  return items[0]!;
};

describe("MCP request telemetry", () => {
  it("a tools/call on /mcp/tasks writes exactly one point naming the tool, outcome, client and revision, and one span", async () => {
    const user = await createUser();
    const observed = observedApp();
    const client = await connect(observed, "/mcp/tasks", user);
    const result = await client.callTool({ name: "add_task", arguments: { title: "Observed" } });
    expect(result.isError).toBeFalsy();
    await client.close();
    await observed.settle();

    // Every POST the client made wrote one point, and one span.
    expect(observed.points).toHaveLength(observed.posts);
    expect(observed.spans).toHaveLength(observed.posts);
    const call = only(observed.points.filter((point) => point.method === "tools/call"));
    expect(call).toMatchObject({
      index: "tasks",
      server: "tasks",
      tool: "add_task",
      source: "",
      outcome: "ok",
      error_code: "",
      client_name: "telemetry-tests",
      client_version: "4.2.0",
      protocol_version: "2026-07-28",
      caller: "outside",
      http_status: 200,
      messages: 1,
      tool_calls: 0,
    });
    expect(call.duration_ms).toBeGreaterThanOrEqual(0);

    const span = only(observed.spans.filter((recorded) => recorded.name === "tools/call add_task"));
    expect(span.attributes).toMatchObject({
      "mcp.method.name": "tools/call",
      "gen_ai.tool.name": "add_task",
      "gen_ai.operation.name": "execute_tool",
      "mcp.protocol.version": "2026-07-28",
    });
    expect(span.attributes["jsonrpc.request.id"]).toEqual(expect.any(String));
    expect(span.attributes["mcp.session.id"]).toBeUndefined();
    expect(span.attributes["error.type"]).toBeUndefined();
    expect(span.status).toBe("ok");
    expect(span.ended).toBe(true);
  });

  it("a call refused for its scope writes one point with the refusal, and an error span", async () => {
    const user = await withScopedToken(await createUser(), ["tasks:read"]);
    const observed = observedApp();
    const response = await rpc(
      observed,
      "/mcp/tasks",
      user,
      { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "add_task", arguments: { title: "No" } } },
      { "mcp-protocol-version": "2025-11-25" },
    );
    expect(response.status).toBe(403);
    await observed.settle();

    const point = only(observed.points);
    expect(point).toMatchObject({ method: "tools/call", tool: "add_task", outcome: "refused", http_status: 403 });
    expect(point.protocol_version).toBe("2025-11-25");
    expect(point.error_code).not.toBe("");
    const span = only(observed.spans);
    expect(span.name).toBe("tools/call add_task");
    expect(span.attributes).toMatchObject({ "jsonrpc.request.id": "7", "error.type": point.error_code });
    expect(span.status).toBe("error");
  });

  it("a call with arguments its schema refuses writes one point with outcome tool_error", async () => {
    const user = await createUser();
    const observed = observedApp();
    const body = { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "add_task", arguments: { title: 42 } } };
    const response = await rpc(observed, "/mcp/tasks", user, body, { "mcp-protocol-version": "2025-11-25" });
    expect(response.status).toBe(200);
    await observed.settle();

    expect(only(observed.points)).toMatchObject({ tool: "add_task", outcome: "tool_error", error_code: "tool_error", http_status: 200 });
    expect(only(observed.spans).attributes["error.type"]).toBe("tool_error");
  });

  it("a tool's own refusal writes its AppError code", async () => {
    const user = await createUser();
    const observed = observedApp();
    const body = { jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "complete_task", arguments: { task_id: 987654321 } } };
    const response = await rpc(observed, "/mcp/tasks", user, body, { "mcp-protocol-version": "2025-11-25" });
    expect(response.status).toBe(200);
    await observed.settle();

    expect(only(observed.points)).toMatchObject({ tool: "complete_task", outcome: "tool_error", error_code: "not_found" });
    expect(only(observed.spans).attributes).toMatchObject({ "error.type": "not_found", "gen_ai.tool.name": "complete_task" });
  });

  it("spec-invalid params write the JSON-RPC error code", async () => {
    const user = await createUser();
    const observed = observedApp();
    const body = { jsonrpc: "2.0", id: 10, method: "tools/call", params: { arguments: {} } };
    const response = await rpc(observed, "/mcp/tasks", user, body, { "mcp-protocol-version": "2025-11-25" });
    await observed.settle();

    const point = only(observed.points);
    expect(point).toMatchObject({ method: "tools/call", tool: "", error_code: "-32602", http_status: response.status });
    const span = only(observed.spans);
    expect(span.name).toBe("tools/call");
    expect(span.attributes).toMatchObject({ "rpc.response.status_code": "-32602", "error.type": "-32602" });
  });

  it("a request without a token is counted as refused, with the 401 answer's error code", async () => {
    const observed = observedApp();
    const response = await observed.fetch("http://localhost/mcp/tasks", {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    expect(response.status).toBe(401);
    await observed.settle();
    // Refused before its body was read: the method is unknown, the revision is the header's.
    const point = only(observed.points);
    expect(point).toMatchObject({ server: "tasks", method: "unknown", outcome: "refused", error_code: "unauthorized", http_status: 401 });
    expect(point.protocol_version).toBe("2025-11-25");
  });

  it("a gateway call names the source that served it", async () => {
    const user = await createUser();
    const registered = await registerTasksSource(user, user);
    expect(registered.status).toBe(201);
    const slug = registered.body.source.slug;
    const observed = observedApp();

    const revision = { "mcp-protocol-version": "2025-11-25" };
    const builtin = await rpc(
      observed,
      "/mcp",
      user,
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_tasks", arguments: {} } },
      revision,
    );
    expect(builtin.status).toBe(200);
    const sourced = await rpc(
      observed,
      "/mcp",
      user,
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: `${slug}__list_tasks`, arguments: {} } },
      revision,
    );
    expect(sourced.status).toBe(200);
    await observed.settle();

    expect(observed.points).toHaveLength(2);
    expect(observed.points[0]).toMatchObject({
      server: "gateway",
      tool: "list_tasks",
      source: "builtin:tasks",
      outcome: "ok",
      tool_calls: 1,
    });
    expect(observed.points[1]).toMatchObject({ server: "gateway", tool: `${slug}__list_tasks`, source: slug, outcome: "ok" });
    expect(observed.points[1]!.tool_calls).toBe(1);
    expect(observed.spans[1]!.attributes["mcp_edge.source"]).toBe(slug);
  });

  it("a 2025-03-26 batch writes one point for its request, counting its messages", async () => {
    const user = await createUser();
    const observed = observedApp();
    const call = (id: number) => ({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "list_tasks", arguments: {} } });
    const response = await rpc(observed, "/mcp/tasks", user, [call(1), call(2)]);
    expect(response.status).toBe(200);
    await observed.settle();

    expect(only(observed.points)).toMatchObject({ method: "tools/call", tool: "list_tasks", messages: 2, outcome: "ok" });
    // A batch has no single JSON-RPC id.
    expect(only(observed.spans).attributes["jsonrpc.request.id"]).toBeUndefined();
  });

  it("without the binding the request is served and nothing is written", async () => {
    const user = await createUser();
    const observed = observedApp({ MCP_ANALYTICS: undefined });
    const revision = { "mcp-protocol-version": "2025-11-25" };
    const response = await rpc(observed, "/mcp/tasks", user, { jsonrpc: "2.0", id: 1, method: "tools/list" }, revision);
    expect(response.status).toBe(200);
    await observed.settle();
    expect(observed.points).toHaveLength(0);
    expect(only(observed.spans).name).toBe("tools/list");
  });
});
