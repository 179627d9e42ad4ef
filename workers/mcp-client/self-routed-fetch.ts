/**
 * A fetch for MCP servers that may be this Worker itself: requests for the Worker's own origin
 * (SELF_ORIGIN) go through the SELF service binding — a Worker cannot reach its own hostname with
 * a plain fetch (decision 0008) — and every other request goes to the network. The gateway's
 * upstream calls and the chat agent's MCP connection both use it; outside the Worker (the command
 * line) the global fetch is used instead.
 */
export type SelfRoutedFetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export function selfRoutedFetch(env: Pick<Env, "SELF" | "SELF_ORIGIN">): SelfRoutedFetch {
  const own = env.SELF_ORIGIN ? new URL(env.SELF_ORIGIN).origin : undefined;
  // Named, so CPU profiles (bench/lib/profile-report.ts) can attribute its time.
  return function selfRoutedRequest(input, init) {
    // The request is copied only to add a header, and only on the way to SELF: every other request
    // goes out as given (a Request copy is a measurable part of an upstream call's CPU).
    const url = input instanceof Request ? new URL(input.url) : input instanceof URL ? input : new URL(input);
    if (own === undefined || url.origin !== own) return fetch(input, init);
    // A service-binding request carries no Host header; the MCP handler's Host check expects the
    // one a network fetch would have sent.
    const request = new Request(input, init);
    request.headers.set("host", url.host);
    return env.SELF.fetch(request);
  };
}
