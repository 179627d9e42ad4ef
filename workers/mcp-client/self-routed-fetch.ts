/**
 * A fetch for MCP servers that may be this Worker itself: requests for the Worker's own origin
 * (SELF_ORIGIN) go through the SELF service binding — a Worker cannot reach its own hostname with
 * a plain fetch (decision 0008) — and every other request goes to the network. The gateway's
 * upstream calls and discovery, and its OAuth requests to upstream authorization servers, use it;
 * outside the Worker (the command line) the global fetch is used instead.
 *
 * This is the one place SELF requests are made, so it alone sets the mark of a tool call the
 * gateway has already counted: SELF enters the Worker at its SelfCalls entry point, which trusts
 * the mark, and the one call is not counted twice (workers/self-calls.ts).
 */

/** The mark of a SELF request whose tool call the gateway has already counted, naming the user it counted for. */
export const TOOL_CALL_COUNTED_FOR_HEADER = "mcp-edge-tool-call-counted-for";

export type SelfRoutedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

/**
 * `countedFor`: the user whose tool-call unit this request's call already spent (the gateway's
 * caller). Only SELF requests carry it; a request to any other origin never does.
 */
export function selfRoutedFetch(env: Pick<Env, "SELF" | "SELF_ORIGIN">, countedFor?: number): SelfRoutedFetch {
  const own = env.SELF_ORIGIN ? new URL(env.SELF_ORIGIN).origin : undefined;
  // Named, so CPU profiles (bench/lib/profile-report.ts) can attribute its time.
  return function selfRoutedRequest(input, init) {
    // Every other origin gets the request as given: a Request copy is a measurable part of an
    // upstream call's CPU, so none is made on either route when the caller passes a URL and init
    // (the SDK's transports do); only the headers are copied, to be changed.
    const url = input instanceof Request ? new URL(input.url) : input instanceof URL ? input : new URL(input);
    if (own === undefined || url.origin !== own) return fetch(input, init);
    const headers = new Headers(input instanceof Request && init?.headers === undefined ? input.headers : init?.headers);
    // A service-binding request carries no Host header; the MCP handler's Host check expects the
    // one a network fetch would have sent.
    headers.set("host", url.host);
    // Whatever mark the request brought (a source's stored headers are the user's to choose) is
    // replaced by the one this call earned, or removed.
    if (countedFor === undefined) headers.delete(TOOL_CALL_COUNTED_FOR_HEADER);
    else headers.set(TOOL_CALL_COUNTED_FOR_HEADER, String(countedFor));
    return input instanceof Request ? env.SELF.fetch(new Request(input, { ...init, headers })) : env.SELF.fetch(url, { ...init, headers });
  };
}
