/**
 * `mcp-edge bridge` forwards any JSON-RPC between HTTP and the stdio process, so the requests the
 * gateway federates beyond tools (decision 0068) cross it as tools do: a plain SDK client lists and
 * reads server-everything's resources, lists its templates and prompts, gets a prompt with
 * arguments and completes one, over stdio through the bridge.
 */
import { join, resolve } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PluginSpec } from "../../bin/bridge/plugins";
import { type RunningBridge, startBridge } from "../../bin/bridge/server";
import { TOKEN } from "./helpers/bridge-client";

const ROOT = resolve(import.meta.dirname, "../..");
const EVERYTHING = join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js");

describe("the bridge carries resources, prompts and completions", { timeout: 60_000 }, () => {
  let bridge: RunningBridge;
  let client: Client;
  beforeAll(async () => {
    const plugin: PluginSpec = {
      name: "",
      command: process.execPath,
      args: [EVERYTHING, "stdio"],
      cwd: ROOT,
      allowedEnv: new Set(),
      defaults: {},
      baseEnv: Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined)),
      requiredEnv: [],
      providedEnv: [],
      manifest: null,
    };
    bridge = await startBridge({
      host: "127.0.0.1",
      port: 0,
      tokens: [TOKEN],
      serve: { kind: "single", plugin },
      singleton: false,
      idleTimeoutMs: 60_000,
      maxProcesses: 4,
      maxProcessesPerToken: 4,
      log: () => undefined,
    });
    client = new Client({ name: "bridge-beyond-tools", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(bridge.url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
  });
  afterAll(async () => {
    await client.close();
    await bridge.close();
  });

  it("lists and reads resources, lists templates", async () => {
    const { resources } = await client.listResources();
    const uri = "demo://resource/static/document/architecture.md";
    expect(resources.map((resource) => resource.uri)).toContain(uri);
    const read = await client.readResource({ uri });
    expect(read.contents[0]?.uri).toBe(uri);
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates.map((template) => template.uriTemplate)).toContain("demo://resource/dynamic/text/{resourceId}");
  });

  it("lists prompts, gets one with arguments and completes an argument", async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(["args-prompt", "completable-prompt"]));
    const got = await client.getPrompt({ name: "args-prompt", arguments: { city: "Porto" } });
    expect(JSON.stringify(got.messages)).toContain("Porto");
    const completed = await client.complete({
      ref: { type: "ref/prompt", name: "completable-prompt" },
      argument: { name: "department", value: "Ma" },
    });
    expect(completed.completion.values).toEqual(["Marketing"]);
  });
});
