/**
 * A full bridge, as the gateway sees it: the bridge at test/upstreams' `bridge_capped` runs one
 * process at most, so while a singleton source holds it, another source's call is refused — typed
 * `busy`, naming the limit and when to retry, without opening the circuit breaker — and works
 * again once the process is gone.
 */
import { describe, expect, it } from "vitest";
import { connectGateway, type SourceBody, type SourceDetailBody } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { api } from "../../helpers/rest";
import { eventually } from "../../helpers/eventually";
import { registerSource, upstreams } from "../../helpers/upstreams";
import { createUser } from "../../helpers/users";

function capped(name: string, lifecycle: "transient" | "singleton"): Record<string, unknown> {
  return { name, mcp_transport_type: "stdio", mcp_lifecycle_mode: lifecycle, bridge_token: upstreams().bridge_token };
}

describe("a bridge at capacity", { timeout: 90_000 }, () => {
  it("answers a call typed busy while another source holds its only process, and serves it once that is gone", async () => {
    const owner = await createUser();
    const url = upstreams().bridge_capped;
    const { body: caller } = await registerSource(owner, url, capped("Caller", "transient"));
    expect(caller.source.last_discovery_error).toBeNull();

    // The transient discovery's process may still be exiting: refresh until the singleton holds the slot.
    const { body: holder } = await registerSource(owner, url, capped("Holder", "singleton"));
    await eventually(async () => {
      if (holder.source.last_discovery_error === null) return true;
      const { body } = await api<SourceDetailBody>(owner, "POST", `/api/sources/${holder.source.id}/refresh`);
      return body.source.last_discovery_error === null ? true : undefined;
    }, "the singleton source to hold the bridge's one process");

    const client = await connectGateway(owner);
    const refused = await client.callTool({ name: "caller__pid", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(refused._meta).toMatchObject({ source: "caller", error_type: "busy" });
    expect(textOf(refused)).toMatch(/^busy: bridge at capacity: .*\(--max-processes 1\); retry after \d+ s$/);
    const health = await api<{ breaker: string }>(owner, "GET", `/api/sources/${caller.source.id}/health`);
    expect(health.body.breaker).toBe("closed");

    expect((await api<SourceBody>(owner, "DELETE", `/api/sources/${holder.source.id}`)).status).toBe(200);
    const served = await eventually(async () => {
      const result = await client.callTool({ name: "caller__pid", arguments: {} });
      return result.isError ? undefined : result;
    }, "the call to be served once the holder's process is gone");
    expect(Number(textOf(served))).toBeGreaterThan(0);
  });
});
