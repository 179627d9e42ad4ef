/**
 * Refreshes of a notes-upstream connection in the tests (test/auth/upstream-connections/refresh-*.test.ts): a
 * connected source with its stored tokens, the Worker's own wiring of upstream connections with one
 * dependency changed (the network, the clock, the refresh budget), and what a kept or a recovered
 * connection looks like afterwards.
 */
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import { openDb } from "../../workers/lib/db";
import { upstreamConnectionDeps } from "../../workers/services";
import type { ConnectionDeps } from "../../workers/upstream-connections/connection-context";
import { UpstreamConnections } from "../../workers/upstream-connections/upstream-connections.service";
import type { SourceDetailBody } from "./gateway";
import { connectNotes, notesClientId, registerNotes, whoami } from "./notes-upstream";
import { authorizationOf, storedTokens, type StoredTokens } from "./upstream-oauth";
import { createUser, type TestUser } from "./users";

export interface Connected {
  owner: TestUser;
  source: SourceDetailBody["source"];
  subject: string;
  clientId: string;
  tokens: StoredTokens;
}

/** A new user with a notes source connected (as `subject`), and the tokens it stored. */
export async function connectedNotes(): Promise<Connected> {
  const owner = await createUser();
  const source = await registerNotes(owner);
  const subject = `refresh-${crypto.randomUUID().slice(0, 8)}`;
  await connectNotes(owner, source.id, subject);
  const tokens = await storedTokens(owner.id, source.id);
  expect(tokens?.refresh_token, "the notes issuer gives a refresh token").toEqual(expect.any(String));
  return { owner, source, subject, clientId: await notesClientId(owner.id, source.id), tokens: tokens! };
}

/** What a failed gateway call carries in `_meta`. */
export interface ErrorMeta {
  error?: { code: string; retry_after_ms?: number };
}

/** The Worker's own wiring (services.ts), with `changes` in place of its dependencies. */
export function workerConnections(changes: Partial<ConnectionDeps> = {}): UpstreamConnections {
  return new UpstreamConnections({ ...upstreamConnectionDeps(env, openDb(env.DB), () => undefined, env.SELF_ORIGIN), ...changes });
}

/** The connection is as it was: connected, the same tokens, the failure shown in its status. */
export async function expectKept({ owner, source, tokens }: Connected, reason: RegExp): Promise<void> {
  const authorization = await authorizationOf(owner, source.id);
  expect(authorization.status).toBe("connected");
  expect(authorization.last_error).toMatch(/^refresh deferred: its authorization server /);
  expect(authorization.last_error).toMatch(reason);
  expect(await storedTokens(owner.id, source.id)).toEqual(tokens);
}

/**
 * Once the server answers again, the next call refreshes with the kept refresh token: no new
 * sign-in. `pauseMs`: the Retry-After the server sent, which the next call waits out (made on a
 * clock moved past it, as the calls within it would not ask the server).
 */
export async function expectRecovers(connected: Connected, pauseMs?: number): Promise<void> {
  const { owner, source, subject, tokens } = connected;
  if (pauseMs !== undefined) {
    const later = workerConnections({ now: () => Date.now() + pauseMs + 1000 });
    expect(await later.bearer({ id: source.id, userId: owner.id, mcpServerUrl: source.url })).toMatchObject({ token: expect.any(String) });
  }
  expect(await whoami(owner, source.slug)).toBe(subject);
  const after = await storedTokens(owner.id, source.id);
  expect(after!.access_token).not.toBe(tokens.access_token);
  const authorization = await authorizationOf(owner, source.id);
  expect(authorization).toMatchObject({ status: "connected", last_error: null });
  expect(authorization.refreshed_at).toEqual(expect.any(String));
}
