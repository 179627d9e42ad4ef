/**
 * DNS-rebinding protection and CORS on /mcp/*: which browser Origins (and Hosts) may reach an MCP
 * endpoint. Rejections are 403 JSON-RPC errors and happen before authentication.
 */
import { createExecutionContext } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { workerFetch } from "../../helpers/mcp";
import { createUser, type TestUser } from "../../helpers/users";
import { appWith, modernPost, rpcResponse } from "../../helpers/rpc";

let user: TestUser;
beforeAll(async () => {
  user = await createUser();
});

/** A tools/list from `origin` (none when undefined) to the tasks server at `url`. */
function listFrom(url: string, origin: string | undefined, extra: Record<string, string> = {}): Request {
  const init = modernPost(user.token, "tools/list", {}, { ...(origin ? { origin } : {}), ...extra });
  return new Request(url, init);
}

async function expectOriginRejected(res: Response, hostname: string) {
  expect(res.status).toBe(403);
  expect(await res.json()).toEqual({ jsonrpc: "2.0", error: { code: -32000, message: `Invalid Origin: ${hostname}` }, id: null });
}

describe("Origin rules", () => {
  it("allows requests without an Origin (non-browser clients)", async () => {
    expect((await workerFetch(listFrom("http://localhost/mcp/tasks", undefined))).status).toBe(200);
  });

  it.each(["http://localhost:5173", "http://127.0.0.1:3000", "http://[::1]:8080"])("allows the localhost Origin %s", async (origin) => {
    expect((await workerFetch(listFrom("http://localhost/mcp/tasks", origin))).status).toBe(200);
  });

  it("allows the Worker's own workers.dev hostname (the console)", async () => {
    const res = await workerFetch(listFrom("https://mcp-edge.acme.workers.dev/mcp/tasks", "https://mcp-edge.acme.workers.dev"));
    expect(res.status).toBe(200);
  });

  it("rejects a foreign Origin with a 403 JSON-RPC error, before authentication", async () => {
    await expectOriginRejected(await workerFetch(listFrom("http://localhost/mcp/tasks", "https://evil.example.com")), "evil.example.com");
    const anonymous = listFrom("http://localhost/mcp/tasks", "https://evil.example.com", { authorization: "" });
    await expectOriginRejected(await workerFetch(anonymous), "evil.example.com");
  });

  it("rejects a DNS-rebinding page even though the Worker's URL carries its hostname", async () => {
    // `wrangler dev` builds request.url from the Host header, so here the page's hostname *is* the
    // URL's: only a hostname no attacker can point at a local server may be trusted from the URL.
    const res = await workerFetch(listFrom("http://evil.example.com:8787/mcp/tasks", "http://evil.example.com:8787"));
    await expectOriginRejected(res, "evil.example.com");
  });

  it("accepts a custom-domain console only once it is listed in ALLOWED_ORIGINS", async () => {
    const request = () => listFrom("https://mcp.example.com/mcp/tasks", "https://mcp.example.com");
    await expectOriginRejected(await appWith({ ALLOWED_ORIGINS: "" })(request(), createExecutionContext()), "mcp.example.com");
    const allowed = await appWith({ ALLOWED_ORIGINS: "mcp.example.com" })(request(), createExecutionContext());
    expect(allowed.status).toBe(200);
  });

  it.each(["console.example.com", "https://console.example.com", " other.example , console.example.com "])(
    "allows a hostname listed in ALLOWED_ORIGINS=%j",
    async (configured) => {
      const fetchApp = appWith({ ALLOWED_ORIGINS: configured });
      const res = await fetchApp(listFrom("http://localhost/mcp/tasks", "https://console.example.com"), createExecutionContext());
      expect(res.status).toBe(200);
      expect((await rpcResponse(res)).result?.["tools"]).toBeDefined();
    },
  );

  it("still rejects other Origins when ALLOWED_ORIGINS is set", async () => {
    const fetchApp = appWith({ ALLOWED_ORIGINS: "console.example.com" });
    const res = await fetchApp(listFrom("http://localhost/mcp/tasks", "https://console.example.com.evil.net"), createExecutionContext());
    await expectOriginRejected(res, "console.example.com.evil.net");
  });
});

describe("Host rules", () => {
  it("rejects a non-localhost Host on a localhost endpoint", async () => {
    const res = await workerFetch(listFrom("http://localhost/mcp/tasks", undefined, { host: "evil.example.com" }));
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: "Invalid Host: evil.example.com" } });
  });

  it("accepts localhost Hosts with any port", async () => {
    const res = await workerFetch(listFrom("http://127.0.0.1:8787/mcp/tasks", undefined, { host: "localhost:8787" }));
    expect(res.status).toBe(200);
  });
});

describe("CORS", () => {
  it("answers a preflight with 204 and the MCP headers, without a token", async () => {
    const res = await workerFetch("http://localhost/mcp/tasks", {
      method: "OPTIONS",
      headers: {
        origin: "https://console.example.com",
        "access-control-request-method": "POST",
        "access-control-request-headers": "mcp-method",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("access-control-allow-methods")).toContain("POST");
    const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    for (const header of ["authorization", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name"])
      expect(allowed).toContain(header);
  });

  it("adds CORS headers to answers and to rejections, so a browser can read the error", async () => {
    const ok = await workerFetch(listFrom("http://localhost/mcp/tasks", "http://localhost:5173"));
    expect(ok.headers.get("access-control-allow-origin")).toBe("*");
    const rejected = await workerFetch(listFrom("http://localhost/mcp/tasks", "https://evil.example.com"));
    expect(rejected.status).toBe(403);
    expect(rejected.headers.get("access-control-allow-origin")).toBe("*");
  });
});
