/**
 * The cap on sources per user (GATEWAY_MAX_SOURCES_PER_USER, 100 here as by default; decision 0051):
 * over REST and the admin tool alike, a registration past it is refused with a typed error naming
 * the limit and its setting, before anything is fetched or stored; registrations sent at once stop
 * at the cap too. A user's first sources are stored directly (as earlier registrations left them),
 * so the test does not register a hundred upstreams.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { callThroughGateway } from "../../helpers/gateway";
import { textOf } from "../../helpers/mcp";
import { errorOf } from "../../helpers/rest";
import { fixtureUrl, registerSource } from "../../helpers/upstreams";
import { createUser, type TestUser } from "../../helpers/users";

const LIMIT = 100;
const NAMES_THE_LIMIT = /100 sources.*GATEWAY_MAX_SOURCES_PER_USER/;

/** `count` sources of `owner` as stored rows (never discovered). */
async function storeSources(owner: TestUser, count: number): Promise<void> {
  const insert = env.DB.prepare("INSERT INTO sources (user_id, name, slug, mcp_server_url) VALUES (?, ?, ?, ?)");
  await env.DB.batch(Array.from({ length: count }, (_, i) => insert.bind(owner.id, `Stored ${i}`, `stored_${i}`, fixtureUrl("empty"))));
}

async function sourceCount(owner: TestUser): Promise<number> {
  const row = await env.DB.prepare("SELECT count(*) AS n FROM sources WHERE user_id = ?").bind(owner.id).first<{ n: number }>();
  return row?.n ?? 0;
}

describe("sources per user", { timeout: 60_000 }, () => {
  it("REST: the 100th source is registered, the 101st refused with conflict naming the limit and its setting", async () => {
    const owner = await createUser();
    await storeSources(owner, LIMIT - 1);
    const last = await registerSource(owner, fixtureUrl("empty"));
    expect(last.status, JSON.stringify(last.body)).toBe(201);

    const refused = await registerSource(owner, fixtureUrl("empty"));
    expect(refused.status).toBe(409);
    const error = errorOf(refused);
    expect(error.code).toBe("conflict");
    expect(error.message).toMatch(NAMES_THE_LIMIT);
    expect(error.details).toEqual({ limit: LIMIT, setting: "GATEWAY_MAX_SOURCES_PER_USER" });
    expect(await sourceCount(owner)).toBe(LIMIT);
  });

  it("the admin tool gateway_add_source is refused the same way", async () => {
    const owner = await createUser();
    await storeSources(owner, LIMIT);
    const result = await callThroughGateway(owner, "gateway_add_source", { name: "One more", url: fixtureUrl("empty") });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^conflict: /);
    expect(textOf(result)).toMatch(NAMES_THE_LIMIT);
    expect(await sourceCount(owner)).toBe(LIMIT);
  });

  it("registrations sent at once stop at the cap", async () => {
    const owner = await createUser();
    await storeSources(owner, LIMIT - 2);
    const answers = await Promise.all(Array.from({ length: 5 }, () => registerSource(owner, fixtureUrl("empty"))));
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 409, 409, 409]);
    expect(await sourceCount(owner)).toBe(LIMIT);
  });

  it("another user's sources do not count", async () => {
    const [full, other] = [await createUser(), await createUser()];
    await storeSources(full, LIMIT);
    expect((await registerSource(other, fixtureUrl("empty"))).status).toBe(201);
  });
});
