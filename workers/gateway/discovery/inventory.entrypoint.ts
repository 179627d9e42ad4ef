/**
 * The Worker's side of what a source's object starts on its own: its rediscovery alarm rang
 * (`rediscover`, decision 0067), or its warm connection heard `notifications/tools/list_changed`
 * (`toolsChanged`). For the latter the object re-lists
 * the tools over its warm connection and hands the list here (the GATEWAY_INVENTORY service
 * binding, a named entry point of this same Worker), and the discovery service writes it to D1 —
 * so the object keeps to its own storage and the inventory has one writer. A named entry point is
 * reachable only through a binding, never from the internet.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import type { InventoryChange, RediscoveryRun } from "../sources/upstream.types";

export class GatewayInventory extends WorkerEntrypoint<Env> {
  async toolsChanged(change: InventoryChange): Promise<void> {
    await (await this.discovery()).toolsChanged(change);
  }

  /** The source's alarm rang: discover it again (the discovery sets the next alarm), unless it is disabled or gone. */
  async rediscover(sourceId: number): Promise<RediscoveryRun> {
    return (await this.discovery()).rediscover(sourceId);
  }

  private async discovery() {
    // Imported here, not at the top: the entry module exports this class, so a static import would
    // put drizzle and every service on each new isolate's startup path (decision 0034).
    const [{ openDb }, { sourceDiscovery }] = await Promise.all([import("../../lib/db"), import("../../services")]);
    return sourceDiscovery(this.env, openDb(this.env.DB), (promise) => this.ctx.waitUntil(promise));
  }
}
