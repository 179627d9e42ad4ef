/**
 * Our MCP Apps (issue 24): the task board on /mcp/tasks and the RAG answer view on /mcp/rag. Their
 * tools name them in tools/list `_meta.ui` on every path — the built-in fast path (2025 eras),
 * the SDK (2026-07-28) and the gateway /mcp — and their `ui://` resources read as the extension says.
 */
import { describe, expect, it } from "vitest";
import { callOk, connect, connectTo, ERAS, workerFetch } from "../../helpers/mcp";
import { rpcRequest, rpcResponse } from "../../helpers/rpc";
import { addTask } from "../../helpers/tasks";
import { createUser, withScopedToken } from "../../helpers/users";

const MCP_APP_MIME_TYPE = "text/html;profile=mcp-app";
const TASK_BOARD = "ui://tasks/task-board.html";
const ANSWER_VIEW = "ui://rag/answer-view.html";
const RAG_QUERY_TOOLS = ["rag_basic", "rag_basic_rerank", "rag_crag", "rag_graphrag", "rag_colbert", "rag_global_graphrag"];

describe.each(ERAS)("apps in tools/list (%s)", (era) => {
  it("lists show_task_board on /mcp/tasks with the task board's resourceUri, both keys", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token, era);
    const { tools } = await client.listTools();
    await client.close();
    const board = tools.find((tool) => tool.name === "show_task_board");
    expect(board?._meta).toMatchObject({
      ui: { resourceUri: TASK_BOARD },
      "ui/resourceUri": TASK_BOARD,
      "mcp-edge/scopes": ["tasks:read"],
    });
    // The other task tools open no app.
    expect(tools.filter((tool) => tool._meta?.["ui"] !== undefined).map((tool) => tool.name)).toEqual(["show_task_board"]);
  });

  it("lists every RAG query tool on /mcp/rag with the answer view's resourceUri", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token, era);
    const { tools } = await client.listTools();
    await client.close();
    const withApp = tools.filter((tool) => tool._meta?.["ui"] !== undefined);
    expect(withApp.map((tool) => tool.name).sort()).toEqual([...RAG_QUERY_TOOLS].sort());
    for (const tool of withApp) expect(tool._meta, tool.name).toMatchObject({ ui: { resourceUri: ANSWER_VIEW } });
  });

  it("lists the apps' tools on the gateway /mcp unchanged", async () => {
    const user = await createUser();
    const client = await connectTo("/mcp", user.token, { era });
    const { tools } = await client.listTools();
    await client.close();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect(byName.get("show_task_board")?._meta).toMatchObject({ ui: { resourceUri: TASK_BOARD } });
    expect(byName.get("rag_basic")?._meta).toMatchObject({ ui: { resourceUri: ANSWER_VIEW } });
  });
});

describe("the apps' resources", () => {
  it("reads the task board as one self-contained MCP App document with a CSP that reaches no other domain", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const { resources } = await client.listResources();
    const listed = resources.find((resource) => resource.uri === TASK_BOARD);
    const { contents } = await client.readResource({ uri: TASK_BOARD });
    await client.close();

    expect(listed).toMatchObject({ mimeType: MCP_APP_MIME_TYPE, _meta: { ui: { csp: { connectDomains: [], resourceDomains: [] } } } });
    expect(contents).toHaveLength(1);
    const [document] = contents;
    expect(document).toMatchObject({ uri: TASK_BOARD, mimeType: MCP_APP_MIME_TYPE, _meta: { ui: { csp: { connectDomains: [] } } } });
    const html = document && "text" in document ? document.text : "";
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('data-view="task-board"');
    // Self-contained: no script or stylesheet loaded from anywhere.
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+stylesheet/i);
  });

  it("reads the answer view on /mcp/rag", async () => {
    const user = await createUser();
    const client = await connect("rag", user.token);
    const { contents } = await client.readResource({ uri: ANSWER_VIEW });
    await client.close();
    expect(contents[0]).toMatchObject({ uri: ANSWER_VIEW, mimeType: MCP_APP_MIME_TYPE });
    expect(contents[0] && "text" in contents[0] ? contents[0].text : "").toContain('data-view="answer-view"');
  });

  it.each(ERAS)("reads both apps through the gateway /mcp, where their tools list them (%s)", async (era) => {
    const user = await createUser();
    const client = await connectTo("/mcp", user.token, { era });
    const { resources } = await client.listResources();
    const board = await client.readResource({ uri: TASK_BOARD });
    const view = await client.readResource({ uri: ANSWER_VIEW });
    await client.close();
    expect(resources.map((resource) => resource.uri)).toEqual(expect.arrayContaining([TASK_BOARD, ANSWER_VIEW]));
    expect(board.contents[0]).toMatchObject({ uri: TASK_BOARD, mimeType: MCP_APP_MIME_TYPE });
    expect(view.contents[0]).toMatchObject({ uri: ANSWER_VIEW, mimeType: MCP_APP_MIME_TYPE });
    expect(board.contents[0] && "text" in board.contents[0] ? board.contents[0].text : "").toContain('data-view="task-board"');
  });

  it("show_task_board answers with the page of tasks the board renders", async () => {
    const user = await createUser();
    const client = await connect("tasks", user.token);
    const task = await addTask(client, { title: "Water the plants", priority: "high" });
    const page = await callOk<{ tasks: { id: number; title: string }[] }>(client, "show_task_board", { status: "pending" });
    await client.close();
    expect(page.tasks.map(({ id, title }) => ({ id, title }))).toEqual([{ id: task.id, title: "Water the plants" }]);
  });
});

describe("each built-in's resources on /mcp need that server's scope alone", () => {
  it("a tasks:read token lists and reads the task board, and is asked for rag:read to read the answer view", async () => {
    const tasksOnly = await withScopedToken(await createUser(), ["tasks:read"]);
    const listed = await workerFetch(rpcRequest("/mcp", tasksOnly.token, "2025-11-25", { method: "resources/list", params: {} }));
    expect(listed.status).toBe(200);
    const resources: unknown = (await rpcResponse(listed)).result?.["resources"];
    const uris = Array.isArray(resources) ? resources.map((resource: { uri?: unknown }) => resource.uri) : [];
    expect(uris).toContain(TASK_BOARD);
    // A list shows nothing the token could not read.
    expect(uris).not.toContain(ANSWER_VIEW);

    const board = await workerFetch(
      rpcRequest("/mcp", tasksOnly.token, "2025-11-25", { method: "resources/read", params: { uri: TASK_BOARD } }),
    );
    expect(board.status).toBe(200);
    const view = await workerFetch(
      rpcRequest("/mcp", tasksOnly.token, "2025-11-25", { method: "resources/read", params: { uri: ANSWER_VIEW } }),
    );
    expect(view.status).toBe(403);
    expect(view.headers.get("www-authenticate")).toContain("rag:read");
  });
});
