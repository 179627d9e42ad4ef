/**
 * The agent-worker project's way to the main Worker beside it (vitest.config.ts): its public routes
 * over the test-only MAIN_HTTP binding, as a client on the internet reaches them. Users are made in
 * the main Worker's own database (the project's DB binding is the same D1 database).
 */
import { env } from "cloudflare:workers";
import type { ChatResult, HistoryMessage } from "../../workers/agent/agent.types";
import type { TestUser } from "../helpers/users";

export function mainFetch(path: string, init: RequestInit = {}): Promise<Response> {
  const request = new Request(`http://localhost${path}`, init);
  request.headers.set("host", "localhost");
  return env.MAIN_HTTP.fetch(request);
}

export async function chat(user: TestUser, message: string): Promise<ChatResult> {
  const res = await mainFetch("/api/chat", {
    method: "POST",
    headers: { ...user.headers, "content-type": "application/json" },
    body: JSON.stringify({ message, time_zone: "Asia/Karachi" }),
  });
  if (res.status !== 200) throw new Error(`POST /api/chat answered ${res.status}: ${await res.text()}`);
  return res.json<ChatResult>();
}

export async function history(user: TestUser): Promise<HistoryMessage[]> {
  const res = await mainFetch("/api/chat", { headers: user.headers });
  return (await res.json<{ messages: HistoryMessage[] }>()).messages;
}
