/**
 * Read-your-writes across stateless MCP requests, on a replica that lags (decision 0065): a user's
 * read after their own acknowledged write sees it, because each of their requests starts its D1
 * session at the bookmark of their latest write, kept in their own UserBookmark object. The replica
 * (test/helpers/lagging-replica.ts) moves only for a session that starts at a bookmark, so a read
 * that ignores the bookmark reads it stale and fails these tests.
 */
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { clearTokenCache } from "../../helpers/isolate";
import { connectWithBindings } from "../../helpers/app";
import { LaggingReplica } from "../../helpers/lagging-replica";
import { callOk } from "../../helpers/mcp";
import type { Task } from "../../helpers/tasks";

let replica: LaggingReplica;

beforeAll(async () => {
  replica = await LaggingReplica.create();
});

/** One MCP request's worth of client: a fresh app, and no token the isolate remembers. */
async function freshClient(token: string) {
  clearTokenCache();
  return connectWithBindings({ DB: replica.binding(), D1_READ_REPLICATION: "on" }, token);
}

function floorOf(userId: number): Promise<string | null> {
  return env.USER_BOOKMARKS.get(env.USER_BOOKMARKS.idFromName(`user:${userId}`)).latest();
}

async function titlesListed(token: string): Promise<string[]> {
  const { client, settle } = await freshClient(token);
  const page = await callOk<{ tasks: Task[] }>(client, "list_tasks", {});
  await settle();
  return page.tasks.map((task) => task.title);
}

describe("read-your-writes on a lagging replica", () => {
  it("list_tasks on a fresh request after add_task sees the task, read from the replica", async () => {
    const user = await replica.insertUser();
    const writer = await freshClient(user.token);
    await callOk(writer.client, "add_task", { title: "written just now" });
    await writer.settle();
    const written = replica.head;
    expect(await floorOf(user.id)).toBe(written);

    const servedBefore = replica.served.length;
    expect(await titlesListed(user.token)).toEqual(["written just now"]);
    // The list came off the replica, from a session that started at the write's bookmark.
    const listing = replica.served.slice(servedBefore).filter((served) => /from "tasks"/i.test(served.sql));
    expect(listing.map((served) => served.target)).toEqual(["replica"]);
    expect(replica.sessions[listing[0]!.session]).toBe(written);
  });

  it("a read that ignores the bookmark reads the stale replica (the double lags)", async () => {
    const user = await replica.insertUser();
    const writer = await freshClient(user.token);
    await callOk(writer.client, "add_task", { title: "not on the replica yet" });
    await writer.settle();

    const unconstrained = replica.binding().withSession("first-unconstrained");
    const stale = await unconstrained.prepare("SELECT title FROM tasks WHERE user_id = ?").bind(user.id).all();
    expect(stale.results).toEqual([]);
  });

  it("another user's write neither moves this user's floor nor starts their session", async () => {
    const alice = await replica.insertUser();
    const bob = await replica.insertUser();
    const aliceClient = await freshClient(alice.token);
    await callOk(aliceClient.client, "add_task", { title: "alice's" });
    await aliceClient.settle();
    const aliceWrite = replica.head;

    const bobClient = await freshClient(bob.token);
    await callOk(bobClient.client, "add_task", { title: "bob's" });
    await bobClient.settle();
    const bobWrite = replica.head;
    expect(bobWrite > aliceWrite).toBe(true);

    expect(await floorOf(alice.id)).toBe(aliceWrite);
    expect(await floorOf(bob.id)).toBe(bobWrite);

    const sessionsBefore = replica.sessions.length;
    expect(await titlesListed(alice.token)).toEqual(["alice's"]);
    const aliceSessions = replica.sessions.slice(sessionsBefore).filter((start) => start !== "first-unconstrained");
    expect(aliceSessions).toEqual([aliceWrite]);

    // Alice writing again leaves Bob's floor where his own write put it.
    const again = await freshClient(alice.token);
    await callOk(again.client, "add_task", { title: "alice's second" });
    await again.settle();
    expect(await floorOf(bob.id)).toBe(bobWrite);
    expect(await floorOf(alice.id)).toBe(replica.head);
  });

  it("a token the replica does not have yet is found on the primary, after the replica was asked", async () => {
    const user = await replica.insertUser();
    const servedBefore = replica.served.length;
    expect(await titlesListed(user.token)).toEqual([]);
    const lookups = replica.served.slice(servedBefore).filter((served) => /from "api_tokens"/i.test(served.sql));
    expect(lookups.map((served) => served.target)).toEqual(["replica", "primary"]);
  });

  it("a token the replica has is looked up there alone", async () => {
    const user = await replica.insertUser();
    await replica.catchUp(replica.head + "~");
    const servedBefore = replica.served.length;
    expect(await titlesListed(user.token)).toEqual([]);
    const lookups = replica.served.slice(servedBefore).filter((served) => /from "api_tokens"/i.test(served.sql));
    expect(lookups.map((served) => served.target)).toEqual(["replica"]);
  });
});
