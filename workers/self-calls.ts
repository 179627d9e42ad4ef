/**
 * SelfCalls: where the Worker's own SELF requests enter (wrangler.toml's SELF binding names this
 * entry point) — the gateway's calls, discovery and OAuth requests to sources on the Worker's own
 * origin (mcp-client/self-routed-fetch.ts, decision 0008). It serves the same app as the default
 * export, built for this caller (app.ts `createApp(…, "self")`): no CORS headers on /mcp*, the
 * gateway's mark of a tool call it has already counted is believed, so one call by a user spends
 * one unit of their budget, not one per hop (http/self-call.ts, mcp/tool-call-limit.ts); and the
 * gateway /mcp itself is refused, so a hop never leads back into the gateway (decision 0045).
 *
 * A named entry point has no URL: only Workers bound to it reach it, and only this Worker is, so
 * nothing from the internet arrives here (docs/security.md). Built on first use like the rest of
 * the entry: a new isolate evaluates only this class.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { Hono } from "hono";
import { createApp } from "./app";
import type { AppEnv } from "./http/context";
import { finishUnreadBody } from "./http/unread-body";

let selfCallsApp: Hono<AppEnv> | undefined;

export class SelfCalls extends WorkerEntrypoint<Env> {
  override async fetch(request: Request): Promise<Response> {
    selfCallsApp ??= createApp(undefined, "self");
    const response = await selfCallsApp.fetch(request, this.env, this.ctx);
    // As the default export does: a refusal answered before the body was read (http/unread-body.ts).
    await finishUnreadBody(request);
    return response;
  }
}
