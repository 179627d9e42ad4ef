/** One MCP request from the bench process (sample checks and the sequential CPU phase). */
import { MCP_PATH, requestBody, requestHeaders, type Tool } from "./mcp";

export interface SampleResponse {
  status: number;
  contentType: string;
  body: string;
}

export async function sendOnce(base: URL, token: string, tool: Tool): Promise<SampleResponse> {
  const response = await fetch(new URL(MCP_PATH, base), {
    method: "POST",
    headers: requestHeaders(token),
    body: requestBody(tool),
  });
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: await response.text() };
}

/** `count` requests one after another (one connection, kept alive); fails on the first non-2xx. */
export async function sendSequential(base: URL, token: string, tool: Tool, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await sendOnce(base, token, tool);
    if (response.status < 200 || response.status > 299) throw new Error(`${tool}: HTTP ${response.status} ${response.body.slice(0, 200)}`);
  }
}
