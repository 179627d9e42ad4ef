/**
 * How a failed refresh of an upstream token is classified (workers/upstream-connections/refresh-failure.ts):
 * refused (the grant is dead) or transient (for now). A real refused connection on loopback — which
 * the workerd test projects cannot produce (their outbound handler turns it into an HTTP 500) — and
 * the decision table for every kind of answer; the note a transient failure leaves in `last_error`,
 * read back by the calls that waited for it.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import { afterAll, describe, expect, it } from "vitest";
import { freePort } from "../../bin/lib/ports";
import { OAuthError } from "../../workers/mcp-client/oauth";
import { OAuthUrlRefused } from "../../workers/upstream-connections/oauth-fetch";
import {
  classifyRefreshFailure,
  deferralNote,
  deferredRefreshError,
  type ExchangeEnd,
  MAX_HONOURED_RETRY_AFTER_S,
  pendingDeferral,
  readDeferral,
  RefreshExchange,
  refreshRetryAt,
} from "../../workers/upstream-connections/refresh-failure";
import { MAX_TOKEN_ANSWER_BYTES } from "../../workers/upstream-connections/token-answer";

const refreshBody = () => new URLSearchParams({ grant_type: "refresh_token", refresh_token: "r" });
const answered = (status: number, oauthError?: string, retryAfterS?: number): ExchangeEnd => ({
  kind: "answered",
  status,
  oauthError,
  retryAfterS,
});

const servers: Server[] = [];
afterAll(() => Promise.all(servers.map((server) => new Promise((done) => server.close(done)))));

/** A loopback server that answers every request with `handler`'s status, headers and body (or never). */
async function server(handler: ((res: ServerResponse) => void) | "never"): Promise<string> {
  const port = await freePort();
  const http = createServer((req, res) => {
    req.resume();
    if (handler !== "never") handler(res);
  });
  servers.push(http);
  await new Promise<void>((done) => http.listen(port, "127.0.0.1", done));
  return `http://127.0.0.1:${port}/token`;
}

async function refreshThrough(url: string, budgetMs = 5_000): Promise<ReturnType<RefreshExchange["failure"]>> {
  const exchange = new RefreshExchange(fetch, budgetMs);
  let thrown: unknown;
  try {
    const response = await exchange.fetch(url, { method: "POST", body: refreshBody() });
    await response.text();
  } catch (error) {
    thrown = error;
  }
  return exchange.failure(thrown);
}

describe("a refresh's exchange, over a real connection", () => {
  it("a refused connection is transient: could not be reached", async () => {
    const closed = `http://127.0.0.1:${await freePort()}/token`;
    expect(await refreshThrough(closed)).toEqual({ kind: "transient", reason: "could not be reached", retryAfterS: undefined });
  });

  it("no answer within the budget is transient, naming the budget", async () => {
    expect(await refreshThrough(await server("never"), 200)).toEqual({
      kind: "transient",
      reason: "did not answer within 1 s",
      retryAfterS: undefined,
    });
  });

  it("a 429's Retry-After (seconds or a date) is kept, in whole seconds", async () => {
    const url = await server((res) => res.writeHead(429, { "retry-after": "2.5", "content-type": "text/plain" }).end("slow down"));
    expect(await refreshThrough(url)).toEqual({ kind: "transient", reason: "answered 429", retryAfterS: 3 });
  });

  it("the OAuth error code of a refusal is read from its body", async () => {
    const url = await server((res) =>
      res
        .writeHead(400, { "content-type": "application/json" })
        .end(JSON.stringify({ error: "invalid_grant", error_description: "revoked" })),
    );
    expect(await refreshThrough(url)).toEqual({ kind: "refused", reason: "invalid_grant (400)" });
  });

  it("a 200 whose connection breaks off mid-body is transient: broke off its answer", async () => {
    const url = await server((res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "400" });
      res.write('{"access_token":"', () => res.destroy());
    });
    expect(await refreshThrough(url)).toEqual({ kind: "transient", reason: "broke off its answer", retryAfterS: undefined });
  });

  it("a whole 200 is handed on, readable, and is no failure", async () => {
    const answer = { access_token: "a", token_type: "Bearer", refresh_token: "r2" };
    const url = await server((res) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer)));
    const exchange = new RefreshExchange(fetch, 5_000);
    const response = await exchange.fetch(url, { method: "POST", body: refreshBody() });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toEqual(answer);
    // No failure was seen: what auth() threw (if anything) decides.
    expect(exchange.failure(undefined)).toEqual({ kind: "refused", reason: "the authorization server did not refresh the token" });
  });

  it("a 200 longer than any token answer is refused, declared or streamed", async () => {
    const long = JSON.stringify({ access_token: "x".repeat(MAX_TOKEN_ANSWER_BYTES) });
    const refused = { kind: "refused", reason: "answered 200 with a body over 64 KiB" };
    const declared = await server((res) => res.writeHead(200, { "content-type": "application/json" }).end(long));
    expect(await refreshThrough(declared)).toEqual(refused);
    const streamed = await server((res) => {
      res.writeHead(200, { "content-type": "application/json" });
      for (let at = 0; at < long.length; at += 8192) res.write(long.slice(at, at + 8192));
      res.end();
    });
    expect(await refreshThrough(streamed)).toEqual(refused);
  });

  it("the refresh request decides, not a request that failed before it", async () => {
    const token = await server((res) =>
      res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "invalid_client" })),
    );
    const exchange = new RefreshExchange(fetch, 5_000);
    await (await exchange.fetch(`${new URL(token).origin}/metadata`, {})).text();
    await (await exchange.fetch(token, { method: "POST", body: refreshBody() })).text();
    // A registration the SDK tries after invalid_client, failing with 503, does not make it transient.
    const registration = await server((res) => res.writeHead(503).end());
    await (await exchange.fetch(registration, { method: "POST", body: "{}" })).text();
    expect(exchange.failure(new Error("no state for this exchange"))).toEqual({ kind: "refused", reason: "invalid_client (400)" });
  });
});

describe("classifyRefreshFailure", () => {
  const transient = (reason: string, retryAfterS?: number) => ({ kind: "transient", reason, retryAfterS });
  const cases: [string, ExchangeEnd | undefined, unknown, ReturnType<typeof transient> | { kind: "refused"; reason: string }][] = [
    ["a network error", { kind: "threw", error: new TypeError("Network connection lost.") }, undefined, transient("could not be reached")],
    ["an abort", { kind: "threw", error: new DOMException("aborted", "AbortError") }, undefined, transient("did not answer in time")],
    [
      "an endpoint our URL rules refuse",
      { kind: "threw", error: new OAuthUrlRefused("OAuth endpoint http://10.0.0.1 refused: private") },
      undefined,
      { kind: "refused", reason: "OAuth endpoint http://10.0.0.1 refused: private" },
    ],
    ["a 502 without a body", answered(502), undefined, transient("answered 502")],
    ["a 503 with Retry-After", answered(503, undefined, 30), undefined, transient("answered 503", 30)],
    ["a 400 server_error", answered(400, "server_error"), undefined, transient("answered 400 server_error")],
    [
      "a 400 temporarily_unavailable",
      answered(400, "temporarily_unavailable"),
      undefined,
      transient("answered 400 temporarily_unavailable"),
    ],
    ["a 400 invalid_grant", answered(400, "invalid_grant"), undefined, { kind: "refused", reason: "invalid_grant (400)" }],
    ["a 401 invalid_client", answered(401, "invalid_client"), undefined, { kind: "refused", reason: "invalid_client (401)" }],
    [
      "a 400 unauthorized_client",
      answered(400, "unauthorized_client"),
      undefined,
      { kind: "refused", reason: "unauthorized_client (400)" },
    ],
    ["a 400 that is not an OAuth error", answered(400), undefined, { kind: "refused", reason: "answered 400" }],
    [
      "a 200 that was not a refresh",
      answered(200),
      new Error("no state"),
      { kind: "refused", reason: "the authorization server did not refresh the token" },
    ],
    [
      "a 200 whose body broke off",
      { kind: "broke_off", status: 200, error: new TypeError("terminated") },
      new Error("no state"),
      transient("broke off its answer"),
    ],
    [
      "a 200 too long to be a token answer",
      { kind: "too_long", status: 200 },
      new Error("no state"),
      { kind: "refused", reason: "answered 200 with a body over 64 KiB" },
    ],
    [
      "no request, an OAuth error thrown",
      undefined,
      new OAuthError("temporarily_unavailable", "later"),
      transient("answered temporarily_unavailable"),
    ],
    ["no request, invalid_grant thrown", undefined, new OAuthError("invalid_grant", "no"), { kind: "refused", reason: "invalid_grant" }],
  ];
  for (const [name, decisive, thrown, expected] of cases) {
    it(name, () => expect(classifyRefreshFailure(decisive, thrown)).toEqual(expected));
  }

  it("a budget that ran out is transient whatever the request saw", () => {
    expect(classifyRefreshFailure(answered(200), new Error("aborted"), 20_000)).toEqual(transient("did not answer within 20 s"));
  });
});

describe("the note a transient failure leaves", () => {
  it("reads back as the same failure, and the same error, for the calls that waited", () => {
    for (const failure of [
      { kind: "transient", reason: "answered 429 slow_down", retryAfterS: 7 },
      { kind: "transient", reason: "could not be reached", retryAfterS: undefined },
    ] as const) {
      expect(readDeferral(deferralNote(failure))).toEqual(failure);
      const error = deferredRefreshError(12, "https://as.example", readDeferral(deferralNote(failure))!);
      expect(error).toEqual(deferredRefreshError(12, "https://as.example", failure));
      expect(error.code).toBe("unavailable");
      expect(error.message).toMatch(
        /^Source 12: the upstream token could not be renewed — its authorization server https:\/\/as\.example .*call again shortly$/,
      );
    }
    expect(deferredRefreshError(12, null, { kind: "transient", reason: "answered 429", retryAfterS: 7 }).details).toEqual({
      retry_after_ms: 7000,
    });
  });

  it("is not read from any other last_error", () => {
    for (const other of [null, "refresh: invalid_grant (400)", "connect: access_denied", "refresh deferred"])
      expect(readDeferral(other)).toBeUndefined();
  });
});

describe("the pause a Retry-After asks for", () => {
  const written = Date.parse("2026-11-21T10:00:00.000Z");
  const at = (seconds: number) => written + seconds * 1000;
  const slowDownFailure = { kind: "transient", reason: "answered 429 slow_down", retryAfterS: 30 } as const;
  const slowDown = { lastError: deferralNote(slowDownFailure), refreshRetryAt: refreshRetryAt(slowDownFailure, written) };

  it("lasts from when the failure was recorded: what is left, rounded up to whole seconds", () => {
    expect(pendingDeferral(slowDown, at(0))).toEqual({ kind: "transient", reason: "answered 429 slow_down", retryAfterS: 30 });
    expect(pendingDeferral(slowDown, at(0.2))?.retryAfterS).toBe(30);
    expect(pendingDeferral(slowDown, at(29.5))?.retryAfterS).toBe(1);
  });

  it("is over once that long has passed", () => {
    expect(pendingDeferral(slowDown, at(30))).toBeUndefined();
    expect(pendingDeferral(slowDown, at(3600))).toBeUndefined();
  });

  it("outlives the note: another note written over it leaves the pause, and the answer says a pause was asked", () => {
    expect(pendingDeferral({ ...slowDown, lastError: "connect: access_denied" }, at(10))).toEqual({
      kind: "transient",
      reason: "asked for a pause before the next refresh",
      retryAfterS: 20,
    });
  });

  it("is no pause without a Retry-After, or with an unreadable time", () => {
    const noRetryAfter = { kind: "transient", reason: "answered 503", retryAfterS: undefined } as const;
    expect(refreshRetryAt(noRetryAfter, written)).toBeNull();
    expect(pendingDeferral({ lastError: deferralNote(noRetryAfter), refreshRetryAt: null }, at(0))).toBeUndefined();
    expect(pendingDeferral({ lastError: null, refreshRetryAt: null }, at(0))).toBeUndefined();
    expect(pendingDeferral({ ...slowDown, refreshRetryAt: "not a time" }, at(0))).toBeUndefined();
  });

  it("is honoured up to a cap: a mistaken day-long Retry-After does not keep the source unusable", () => {
    const day = { kind: "transient", reason: "answered 429", retryAfterS: 86_400 } as const;
    const row = { lastError: deferralNote(day), refreshRetryAt: refreshRetryAt(day, written) };
    expect(pendingDeferral(row, at(0))?.retryAfterS).toBe(MAX_HONOURED_RETRY_AFTER_S);
    expect(pendingDeferral(row, at(MAX_HONOURED_RETRY_AFTER_S))).toBeUndefined();
  });
});
