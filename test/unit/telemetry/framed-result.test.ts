import { describe, expect, it } from "vitest";
import { framedResult, McpRequestTelemetry } from "../../../workers/telemetry/mcp-request";
import { mcpOutcome } from "../../../workers/telemetry/mcp-outcome";

const toolError = JSON.stringify({ isError: true, content: [{ type: "text", text: "no" }], _meta: { error: { code: "not_found" } } });

describe("the outcome of an answer mcp-edge framed itself", () => {
  it("reads a tool error's code from the result", () => {
    expect(mcpOutcome(200, framedResult(toolError, true), [])).toEqual({ outcome: "tool_error", errorCode: "not_found" });
  });

  it("counts a result whose text only mentions isError as a success", () => {
    const quoted = JSON.stringify({ content: [{ type: "text", text: '{"isError":true}' }] });
    expect(mcpOutcome(200, framedResult(quoted, true), [])).toEqual({ outcome: "ok", errorCode: "" });
  });

  it("counts a nested isError that is not the result's own as a success", () => {
    const nested = JSON.stringify({ content: [], structuredContent: { check: { isError: true } } });
    expect(mcpOutcome(200, framedResult(nested, true), [])).toEqual({ outcome: "ok", errorCode: "" });
  });

  it("never reads a listing: it is not a tool call", () => {
    expect(mcpOutcome(200, framedResult('{"tools":[],"isError":true}', false), [])).toEqual({ outcome: "ok", errorCode: "" });
  });

  it("names the body's messages from what the pipeline read, lazily and once", () => {
    const telemetry = new McpRequestTelemetry();
    telemetry.learn(
      [
        { method: "tools/call", id: 3, params: { name: "add_task", arguments: {} } },
        { method: undefined, id: undefined, params: undefined },
        { method: "prompts/get", id: "p", params: { name: "review_tasks" } },
      ],
      { name: null, version: null, protocol_version: null, oauth_client_id: null },
    );
    expect(telemetry.messages).toEqual([
      { method: "tools/call", target: "add_task", id: 3 },
      { method: "prompts/get", target: "review_tasks", id: "p" },
    ]);
    expect(telemetry.messages).toBe(telemetry.messages);
  });
});
