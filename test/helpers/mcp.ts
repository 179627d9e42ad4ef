/**
 * The one MCP connection helper the tests share: a real @modelcontextprotocol/client Client talking
 * to the Worker in-process (exports.default.fetch) — to one server at /mcp/<server> or to the
 * gateway at /mcp — in any protocol era.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { exports } from "cloudflare:workers";

export type Era = "2026-07-28" | "2025-11-25" | "2025-06-18";
export const ERAS: readonly Era[] = ["2026-07-28", "2025-11-25", "2025-06-18"];

/** Fetch against the Worker in-process, with the Host header a real HTTP client would send. */
export function workerFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  if (!request.headers.has("host")) request.headers.set("host", new URL(request.url).host);
  return exports.default.fetch(request);
}

type ClientOptions = NonNullable<ConstructorParameters<typeof Client>[1]>;

/** How a client speaks only `era`: pinned to 2026-07-28, or the 2025 handshake offering just that revision. */
export function eraOptions(era: Era): ClientOptions {
  return era === "2026-07-28"
    ? { versionNegotiation: { mode: { pin: "2026-07-28" } } }
    : { versionNegotiation: { mode: "legacy" }, supportedProtocolVersions: [era] };
}

export interface ConnectOptions {
  /** Speak only this revision; unset: the SDK's own negotiation, as an unconfigured client does. */
  era?: Era;
  /** Where requests go; default the Worker in-process (workerFetch). */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

/** Connects to `path` ("/mcp/tasks", "/mcp") with a bearer token. */
export async function connectTo(path: string, token: string, options: ConnectOptions = {}): Promise<Client> {
  const client = new Client({ name: "mcp-edge-tests", version: "1.0.0" }, options.era ? eraOptions(options.era) : undefined);
  const transport = new StreamableHTTPClientTransport(new URL(path, "http://localhost"), {
    fetch: options.fetch ?? workerFetch,
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** One server (`tasks`, `rag`, `thinking`) at /mcp/<server>, speaking `era`. */
export function connect(server: string, token: string, era: Era = "2026-07-28"): Promise<Client> {
  return connectTo(`/mcp/${server}`, token, { era });
}

type CallResult = Awaited<ReturnType<Client["callTool"]>>;

/** Calls a tool and returns its structuredContent, failing loudly with the error text if it errored. */
export async function callOk<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
  return result.structuredContent as T;
}

export function textOf(result: CallResult): string {
  return (result.content as { type: string; text?: string }[])
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n");
}
