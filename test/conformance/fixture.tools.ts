/**
 * The tools the MCP conformance suite's server scenarios call, named and shaped as the suite
 * (@modelcontextprotocol/conformance) specifies. Two go through our own `defineTool` wrapper so the
 * suite also exercises it; the rest need content types, notifications or input requests the
 * wrapper does not produce, so they are registered on the SDK server directly.
 *
 * Sampling and elicitation use the 2026-07-28 `inputRequired` flow (the only one a stateless
 * server can offer): 2026 clients fulfil it and retry; on the stateless 2025 lane the SDK reports
 * the request as impossible (see test/conformance/expected-failures.yml).
 */
import {
  type ElicitRequestFormParams,
  fromJsonSchema,
  inputRequired,
  type McpServer,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { AppError } from "../../workers/lib/errors";
import { defineTool, READ_ONLY, type ToolDefinition } from "../../workers/mcp/tool";
import { RED_PIXEL_PNG, SILENT_WAV } from "./fixture.media";

const NO_INPUT = z.object({});

export const wrappedScenarioTools: ToolDefinition[] = [
  defineTool({
    name: "test_simple_text",
    title: "Simple text",
    description: "Returns a fixed text (conformance scenario tools-call-simple-text).",
    input: NO_INPUT,
    output: z.object({ text: z.string() }),
    annotations: READ_ONLY,
    scopes: ["gateway:read"],
    run: async () => {
      const text = "This is a simple text response for testing.";
      return { data: { text }, text };
    },
  }),
  defineTool({
    name: "test_error_handling",
    title: "Error handling",
    description: "Always fails (conformance scenario tools-call-error).",
    input: NO_INPUT,
    output: NO_INPUT,
    annotations: READ_ONLY,
    scopes: ["gateway:read"],
    run: async () => {
      throw new AppError("invalid_input", "This tool intentionally returns an error for testing");
    },
  }),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const text = (value: string) => ({ type: "text" as const, text: value });
const image = () => ({ type: "image" as const, data: RED_PIXEL_PNG, mimeType: "image/png" });

type Schema = ElicitRequestFormParams["requestedSchema"];

const SEP1034_DEFAULTS: Schema = {
  type: "object",
  properties: {
    name: { type: "string", description: "User name", default: "John Doe" },
    age: { type: "integer", description: "User age", default: 30 },
    score: { type: "number", description: "User score", default: 95.5 },
    status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
    verified: { type: "boolean", description: "Verification status", default: true },
  },
};

const SEP1330_ENUMS: Schema = {
  type: "object",
  properties: {
    untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
    titledSingle: {
      type: "string",
      oneOf: [
        { const: "value1", title: "First Option" },
        { const: "value2", title: "Second Option" },
        { const: "value3", title: "Third Option" },
      ],
    },
    legacyEnum: { type: "string", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
    untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
    titledMulti: {
      type: "array",
      items: {
        anyOf: [
          { const: "value1", title: "First Choice" },
          { const: "value2", title: "Second Choice" },
          { const: "value3", title: "Third Choice" },
        ],
      },
    },
  },
};

/** One elicitation round: ask on the first call, report the client's answer on the retry. */
function elicitOnce(ctx: ServerContext, message: string, requestedSchema: Schema) {
  const answer = ctx.mcpReq.inputResponses?.["answer"];
  if (answer === undefined) return inputRequired({ inputRequests: { answer: inputRequired.elicit({ message, requestedSchema }) } });
  return { content: [text(`Elicitation completed: ${JSON.stringify(answer)}`)] };
}

/** Hand-written JSON Schema 2020-12 (SEP-1613): $schema, $defs and additionalProperties must survive tools/list. */
const JSON_SCHEMA_2020_12_INPUT = fromJsonSchema({
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "object",
  $defs: { address: { type: "object", properties: { street: { type: "string" }, city: { type: "string" } } } },
  properties: { name: { type: "string" }, address: { $ref: "#/$defs/address" } },
  additionalProperties: false,
});

export function registerScenarioTools(server: McpServer): void {
  server.registerTool(
    "json_schema_2020_12_tool",
    { description: "Tool with JSON Schema 2020-12 features", inputSchema: JSON_SCHEMA_2020_12_INPUT },
    (args) => ({ content: [text(`Received ${JSON.stringify(args)}`)] }),
  );
  server.registerTool("test_image_content", { description: "Returns a 1x1 PNG image" }, () => ({ content: [image()] }));
  server.registerTool("test_audio_content", { description: "Returns a short WAV clip" }, () => ({
    content: [{ type: "audio", data: SILENT_WAV, mimeType: "audio/wav" }],
  }));
  server.registerTool("test_embedded_resource", { description: "Returns an embedded text resource" }, () => ({
    content: [
      {
        type: "resource",
        resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." },
      },
    ],
  }));
  server.registerTool("test_multiple_content_types", { description: "Returns text, image and resource content" }, () => ({
    content: [
      text("Multiple content types test:"),
      image(),
      {
        type: "resource",
        resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: '{"test":"data","value":123}' },
      },
    ],
  }));

  server.registerTool("test_tool_with_logging", { description: "Logs three messages while it runs" }, async (ctx) => {
    await ctx.mcpReq.log("info", "Tool execution started");
    await sleep(50);
    await ctx.mcpReq.log("info", "Tool processing data");
    await sleep(50);
    await ctx.mcpReq.log("info", "Tool execution completed");
    return { content: [text("Logging tool finished")] };
  });

  server.registerTool("test_tool_with_progress", { description: "Reports progress 0, 50, 100 of 100" }, async (ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined) {
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
      }
      if (progress < 100) await sleep(50);
    }
    return { content: [text("Progress tool finished")] };
  });

  server.registerTool(
    "test_sampling",
    { description: "Asks the client's model to answer a prompt", inputSchema: z.object({ prompt: z.string() }) },
    ({ prompt }, ctx) => {
      const reply = ctx.mcpReq.inputResponses?.["reply"];
      if (reply === undefined) {
        return inputRequired({
          inputRequests: { reply: inputRequired.createMessage({ messages: [{ role: "user", content: text(prompt) }], maxTokens: 100 }) },
        });
      }
      return { content: [text(`LLM response: ${JSON.stringify(reply)}`)] };
    },
  );

  server.registerTool(
    "test_elicitation",
    { description: "Asks the user for a username and email", inputSchema: z.object({ message: z.string() }) },
    ({ message }, ctx) =>
      elicitOnce(ctx, message, {
        type: "object",
        properties: {
          username: { type: "string", description: "User's response" },
          email: { type: "string", description: "User's email address" },
        },
        required: ["username", "email"],
      }),
  );
  server.registerTool("test_elicitation_sep1034_defaults", { description: "Elicits with default values (SEP-1034)" }, (ctx) =>
    elicitOnce(ctx, "Test client default value handling - please accept with defaults", SEP1034_DEFAULTS),
  );
  server.registerTool("test_elicitation_sep1330_enums", { description: "Elicits every enum variant (SEP-1330)" }, (ctx) =>
    elicitOnce(ctx, "Test enum schema variants", SEP1330_ENUMS),
  );
}
