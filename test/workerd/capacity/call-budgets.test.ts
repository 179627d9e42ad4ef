/**
 * The operation budget of each kind of call that needs no upstream server: D1 statements and rows,
 * queue messages, Durable Object requests and KV operations, counted on the real bindings
 * (counting-env.ts) and asserted against bench/capacity/operation-budgets.ts. The gateway's calls
 * of an upstream source are in gateway-budgets.test.ts (the upstreams project).
 */
import { describe, it } from "vitest";
import { api } from "../../helpers/rest";
import { connect } from "../../helpers/mcp";
import { obtainTokens } from "../../helpers/oauth";
import { ingestCorpus } from "../../helpers/rag";
import { createUser, type TestUser } from "../../helpers/users";
import { coldThenWarm, countedFetch, countedMcp, expectBudget } from "./measure";

/** tools/call of `name` on `path` with `token`. */
function callTool(path: string, token: string, name: string, args: Record<string, unknown> = {}) {
  return () => countedMcp(path, token, "tools/call", { name, arguments: args });
}

/** A user with the same three tasks, so every list reads the same rows. */
async function userWithTasks(): Promise<{ user: TestUser; ids: number[] }> {
  const user = await createUser();
  const ids: number[] = [];
  for (const title of ["Water the plants", "Pay the rent", "Call the plumber"]) {
    const res = await api<{ task: { id: number } }>(user, "POST", "/api/tasks", { body: { title, priority: "medium" } });
    ids.push(res.body.task.id);
  }
  return { user, ids };
}

describe("operation budgets: the tasks server", () => {
  it("tools/list on /mcp/tasks", async () => {
    const user = await createUser();
    expectBudget("tasks_tools_list", await coldThenWarm(() => countedMcp("/mcp/tasks", user.token, "tools/list")));
  });

  it("tools/call list_tasks", async () => {
    const { user } = await userWithTasks();
    expectBudget("list_tasks", await coldThenWarm(callTool("/mcp/tasks", user.token, "list_tasks")));
  });

  it("tools/call add_task", async () => {
    const user = await createUser();
    expectBudget("add_task", await coldThenWarm(callTool("/mcp/tasks", user.token, "add_task", { title: "Buy bread", priority: "high" })));
  });

  it("tools/call update_task", async () => {
    const { user, ids } = await userWithTasks();
    let next = 0;
    const update = () => callTool("/mcp/tasks", user.token, "update_task", { task_id: ids[next++], title: "Renamed" })();
    expectBudget("update_task", await coldThenWarm(update));
  });

  it("tools/call complete_task", async () => {
    const { user, ids } = await userWithTasks();
    let next = 0;
    const complete = () => callTool("/mcp/tasks", user.token, "complete_task", { task_id: ids[next++] })();
    expectBudget("complete_task", await coldThenWarm(complete));
  });

  it("tools/call list_tasks with an OAuth access token", async () => {
    const { user } = await userWithTasks();
    const { tokens } = await obtainTokens(user);
    expectBudget("list_tasks_oauth", await coldThenWarm(callTool("/mcp/tasks", tokens.access_token, "list_tasks")));
  });
});

describe("operation budgets: the REST API", () => {
  async function countedGet(user: TestUser, path: string) {
    const counted = await countedFetch(path, { headers: user.headers });
    if (counted.status !== 200) throw new Error(`GET ${path} answered ${counted.status}: ${counted.text}`);
    return counted.counts;
  }

  it("GET /api/tasks", async () => {
    const { user } = await userWithTasks();
    expectBudget("rest_list_tasks", await coldThenWarm(() => countedGet(user, "/api/tasks")));
  });

  it("GET /api/tasks/:id", async () => {
    const { user, ids } = await userWithTasks();
    expectBudget("rest_get_task", await coldThenWarm(() => countedGet(user, `/api/tasks/${ids[0]}`)));
  });
});

describe("operation budgets: the gateway's built-in tools", () => {
  it("tools/call list_tasks on /mcp", async () => {
    const { user } = await userWithTasks();
    expectBudget("gateway_builtin_call", await coldThenWarm(callTool("/mcp", user.token, "list_tasks")));
  });
});

describe("operation budgets: RAG", () => {
  it("tools/call rag_basic", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    await ingestCorpus(client);
    await client.close();
    const query = callTool("/mcp/rag", user.token, "rag_basic", { query: "stem cells tissue repair", top_k: 3 });
    expectBudget("rag_query", await coldThenWarm(query));
  });
});
