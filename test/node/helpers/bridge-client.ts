/**
 * A minimal streamable-HTTP client for the bridge's Node tests: raw JSON-RPC over fetch (so
 * statuses, headers and session ids stay visible), and process liveness checks.
 */
import { expect } from "vitest";

export const TOKEN = "node-test-bridge-token-0123456789";

export const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "bridge-test", version: "1" } },
};

export interface Rpc {
  status: number;
  headers: Headers;
  sessionId: string | null;
  body: { result?: Record<string, unknown>; error?: { code: number; message: string; data?: Record<string, unknown> } } | null;
}

/** POSTs one message with the test token (an `authorization` in `headers` replaces it). */
export async function rpc(url: string, message: unknown, headers: Record<string, string> = {}): Promise<Rpc> {
  const res = await fetch(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${TOKEN}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(message),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, sessionId: res.headers.get("mcp-session-id"), body: text ? JSON.parse(text) : null };
}

/** initialize + notifications/initialized; returns the session id. */
export async function openSession(url: string, headers: Record<string, string> = {}): Promise<string> {
  const init = await rpc(url, INIT, headers);
  expect(init.body?.error, JSON.stringify(init.body)).toBeUndefined();
  expect(init.sessionId).toBeTruthy();
  const sessionId = init.sessionId!;
  const ack = await rpc(url, { jsonrpc: "2.0", method: "notifications/initialized" }, { ...headers, "mcp-session-id": sessionId });
  expect(ack.status).toBe(202);
  return sessionId;
}

export async function callTool(
  url: string,
  sessionId: string,
  name: string,
  id = 2,
  args: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Rpc> {
  return rpc(
    url,
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } },
    { ...headers, "mcp-session-id": sessionId },
  );
}

export function textOf(reply: Rpc): string {
  const content = reply.body?.result?.["content"] as { text: string }[] | undefined;
  return content?.[0]?.text ?? "";
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
