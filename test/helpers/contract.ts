/**
 * The contract every MCP server of this Worker keeps (tasks, rag, thinking, and the gateway at
 * /mcp), checked the same way for each: what tools/list says of every tool (an object input
 * schema, an output schema where the tool declares one, the four annotations, its scopes in
 * `_meta["mcp-edge/scopes"]`), and what bad input gets — a missing required argument, an argument
 * of the wrong type, an unknown tool — a JSON-RPC error or an isError result that names what is
 * wrong, over HTTP 200, never a 5xx and never a stack trace. One contract test file per server
 * (test/workerd/contract/) calls `describeServerContract`.
 */
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../workers/auth/scopes";
import { SCOPES_META_KEY } from "../../workers/mcp/tool";
import { connectTo, ERAS, workerFetch } from "./mcp";
import { type JsonRpcResponse, modernPost, rpcResponse } from "./rpc";
import { createUser } from "./users";

export interface ServerContract {
  /** Where the server answers: "/mcp/tasks", "/mcp". */
  path: string;
  /** Every tool it lists for a new user, by name: adding, renaming or dropping one is a contract change. */
  tools: readonly string[];
  /** The tools whose answers carry structuredContent, and so must declare an output schema. */
  withOutputSchema: readonly string[];
  /** Exactly these are read-only (readOnlyHint), and exactly these destructive (destructiveHint). */
  readOnly: readonly string[];
  destructive: readonly string[];
}

interface ListedTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: { type: string; properties?: Record<string, JsonSchema>; required?: string[] };
  outputSchema?: { type: string; properties?: Record<string, unknown> };
  annotations?: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

type JsonSchema = { type?: string | string[]; enum?: unknown[] } & Record<string, unknown>;

/** A value no schema of `type` accepts, or undefined when the property has no single plain type. */
function wrongValueFor(schema: JsonSchema): unknown {
  switch (schema.type) {
    case "string":
      return 12345;
    case "number":
    case "integer":
      return "not a number";
    case "boolean":
      return "not a boolean";
    case "array":
      return "not an array";
    case "object":
      return "not an object";
    default:
      return undefined;
  }
}

/** A tools/call over raw HTTP, so the status itself is checked: a bad call is never a 5xx. */
async function rawCall(path: string, token: string, name: string, args: unknown): Promise<{ status: number; message: JsonRpcResponse }> {
  const response = await workerFetch(`http://localhost${path}`, modernPost(token, "tools/call", { name, arguments: args }));
  return { status: response.status, message: await rpcResponse(response) };
}

/** What a refused call says: the JSON-RPC error's message, or an isError result's text; fails if the call succeeded. */
function refusalText(message: JsonRpcResponse, what: string): string {
  if (message.error) return `${message.error.message} ${JSON.stringify(message.error.data ?? "")}`;
  const result = message.result as { isError?: boolean; content?: { type: string; text?: string }[] } | undefined;
  expect(result?.isError, `${what} should be refused, but answered ${JSON.stringify(result)}`).toBe(true);
  return (result?.content ?? []).map((block) => block.text ?? "").join("\n");
}

function expectClearRefusal(status: number, message: JsonRpcResponse, what: string, names: string): void {
  expect(status, `${what}: HTTP status`).toBe(200);
  const text = refusalText(message, what);
  expect(text, what).toContain(names);
  expect(text, `${what}: no stack trace`).not.toMatch(/\n\s+at /);
}

async function listTools(path: string, era: (typeof ERAS)[number]): Promise<ListedTool[]> {
  const user = await createUser();
  const client = await connectTo(path, user.token, { era });
  try {
    return (await client.listTools()).tools as ListedTool[];
  } finally {
    await client.close();
  }
}

export function describeServerContract(contract: ServerContract): void {
  describe.each(ERAS)(`tools/list on ${contract.path} (%s)`, (era) => {
    it("lists exactly the contracted tools, each with its schemas, annotations and scopes", async () => {
      const tools = await listTools(contract.path, era);
      expect(tools.map((tool) => tool.name).sort()).toEqual([...contract.tools].sort());
      for (const tool of tools) {
        expect(tool.title?.length ?? 0, `${tool.name}: title`).toBeGreaterThan(0);
        expect(tool.description?.length ?? 0, `${tool.name}: a description written for a model`).toBeGreaterThan(20);
        expect(tool.inputSchema.type, `${tool.name}: input schema`).toBe("object");
        expect(typeof (tool.inputSchema.properties ?? {}), `${tool.name}: input properties`).toBe("object");
        if (contract.withOutputSchema.includes(tool.name)) expect(tool.outputSchema?.type, `${tool.name}: output schema`).toBe("object");
        else expect(tool.outputSchema, `${tool.name}: no output schema`).toBeUndefined();
        expect(tool.annotations, `${tool.name}: annotations`).toMatchObject({
          readOnlyHint: contract.readOnly.includes(tool.name),
          destructiveHint: contract.destructive.includes(tool.name),
          idempotentHint: expect.any(Boolean),
          openWorldHint: expect.any(Boolean),
        });
        const scopes = tool._meta?.[SCOPES_META_KEY];
        expect(Array.isArray(scopes) && scopes.length > 0, `${tool.name}: _meta["${SCOPES_META_KEY}"] names its scopes`).toBe(true);
        for (const scope of scopes as unknown[]) expect(SCOPES, `${tool.name}: scope ${String(scope)}`).toContain(scope);
      }
    });
  });

  describe(`bad input on ${contract.path}`, () => {
    it("a missing required argument is refused naming it, for every tool that has one", async () => {
      const user = await createUser();
      const tools = await listTools(contract.path, "2026-07-28");
      const checked = tools.filter((tool) => (tool.inputSchema.required ?? []).length > 0);
      expect(checked.length, "tools with a required argument").toBeGreaterThan(0);
      for (const tool of checked) {
        const missing = tool.inputSchema.required![0]!;
        const { status, message } = await rawCall(contract.path, user.token, tool.name, {});
        expectClearRefusal(status, message, `${tool.name} without ${missing}`, missing);
      }
    });

    it("an argument of the wrong type is refused naming it", async () => {
      const user = await createUser();
      const tools = await listTools(contract.path, "2026-07-28");
      let checked = 0;
      for (const tool of tools) {
        const entry = Object.entries(tool.inputSchema.properties ?? {}).find(([, schema]) => wrongValueFor(schema) !== undefined);
        if (!entry) continue;
        const [name, schema] = entry;
        const { status, message } = await rawCall(contract.path, user.token, tool.name, { [name]: wrongValueFor(schema) });
        expectClearRefusal(status, message, `${tool.name} with ${name} of the wrong type`, name);
        checked++;
      }
      expect(checked, "tools with a plainly typed argument").toBeGreaterThan(0);
    });

    it("an unknown tool and arguments that are not an object are refused naming what is wrong", async () => {
      const user = await createUser();
      const unknown = await rawCall(contract.path, user.token, "no_such_tool_anywhere", {});
      expectClearRefusal(unknown.status, unknown.message, "an unknown tool", "no_such_tool_anywhere");
      const notAnObject = await rawCall(contract.path, user.token, contract.tools[0]!, "not an object");
      expectClearRefusal(notAnObject.status, notAnObject.message, "arguments given as a string", "arguments");
    });
  });
}
