/**
 * The hostile OAuth server of the auth tests (test/upstreams/hostile-oauth.ts): a case of its own
 * per test — an attacker's MCP endpoint (the listener a source's URL is moved to) and the
 * authorization server its metadata names — what to make it do, and what it received.
 */
import { expect } from "vitest";
import type { CaseRecord, HostileCase, RecordedRequest } from "../upstreams/hostile-oauth-case";
import type { SourceDetailBody } from "./gateway";
import { api } from "./rest";
import { upstreams } from "./upstreams";
import type { TestUser } from "./users";

export interface HostileUpstream {
  id: string;
  /** Its MCP endpoint: always 401, naming `issuer` as its authorization server. */
  mcpUrl: string;
  issuer: string;
}

export async function hostileUpstream(setup: HostileCase = {}): Promise<HostileUpstream> {
  const id = crypto.randomUUID().replaceAll("-", "");
  const base = upstreams().hostile_oauth;
  const res = await fetch(`${base}/test-control/${id}`, { method: "PUT", body: JSON.stringify(setup) });
  expect(res.status).toBe(204);
  return { id, mcpUrl: `${base}/${id}/mcp`, issuer: `${base}/${id}/as` };
}

/** Registers the case's MCP endpoint as a source of `owner` (its discovery learns the case's protection); the source's id. */
export async function registerHostile(owner: TestUser, upstream: HostileUpstream): Promise<number> {
  const body = { name: `Hostile ${upstream.id.slice(0, 6)}`, url: upstream.mcpUrl };
  const res = await api<SourceDetailBody>(owner, "POST", "/api/sources", { body });
  expect(res.status).toBe(201);
  return res.body.source.id;
}

/** Every request the case's endpoints received, in order. */
export async function receivedBy(upstream: HostileUpstream): Promise<RecordedRequest[]> {
  const res = await fetch(`${upstreams().hostile_oauth}/test-control/${upstream.id}`);
  expect(res.status).toBe(200);
  return (await res.json<CaseRecord>()).requests;
}

/** The requests its authorization server's `path` (e.g. "/token", "/register") received. */
export async function receivedAt(upstream: HostileUpstream, path: string): Promise<RecordedRequest[]> {
  const prefix = new URL(`${upstream.issuer}${path}`).pathname;
  return (await receivedBy(upstream)).filter((request) => request.path.split("?")[0] === prefix);
}
