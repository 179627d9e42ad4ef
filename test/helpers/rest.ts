/** REST calls against the Worker in-process, with the JSON parsed and the status kept. */
import { z } from "zod";
import type { TestUser } from "./users";
import { workerFetch } from "./mcp";

export interface ApiResponse<T> {
  status: number;
  headers: Headers;
  body: T;
}

/** The REST error shape (http/errors.ts). */
const errorBody = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});
export type ErrorBody = z.output<typeof errorBody>;

/** The error of a response expected to fail; a body that is not the REST error shape fails the test. */
export function errorOf(res: { body: unknown }): ErrorBody["error"] {
  return errorBody.parse(res.body).error;
}

/** `body` is sent as JSON; pass a string in `raw` to send bytes exactly as given. */
export async function api<T = Record<string, unknown>>(
  user: TestUser | undefined,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(user?.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.body);
  } else if (options.raw !== undefined) {
    body = options.raw;
  }
  Object.assign(headers, options.headers);
  const res = await workerFetch(`http://localhost${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text === "" ? null : JSON.parse(text)) as T };
}
