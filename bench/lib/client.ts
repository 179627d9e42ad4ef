/** One MCP request from the bench process (sample checks and the sequential CPU phase). */
import { DIRECT, requestBody, requestHeaders, type Route, type Tool } from "./mcp";

export interface SampleResponse {
  status: number;
  contentType: string;
  body: string;
}

export async function sendOnce(base: URL, token: string, tool: Tool, route: Route = DIRECT): Promise<SampleResponse> {
  const response = await fetch(new URL(route.path, base), {
    method: "POST",
    headers: requestHeaders(token, route),
    body: requestBody(tool, route),
  });
  return { status: response.status, contentType: response.headers.get("content-type") ?? "", body: await response.text() };
}

/** `count` requests one after another (one connection, kept alive); fails on the first non-2xx. */
export async function sendSequential(base: URL, token: string, tool: Tool, count: number, route: Route = DIRECT): Promise<void> {
  for (let i = 0; i < count; i++) {
    const response = await sendOnce(base, token, tool, route);
    if (response.status < 200 || response.status > 299) throw new Error(`${tool}: HTTP ${response.status} ${response.body.slice(0, 200)}`);
  }
}
