/**
 * The Worker's side of a source object's `notifications/tools/list_changed`: the object re-lists
 * the tools over its warm connection and hands the list here (the GATEWAY_INVENTORY service
 * binding, a named entry point of this same Worker), and the discovery service writes it to D1 —
 * so the object keeps to its own storage and the inventory has one writer. A named entry point is
 * reachable only through a binding, never from the internet.
 */
import { WorkerEntrypoint } from "cloudflare:workers";
import { openDb } from "../lib/db";
import { sourceDiscovery } from "../services";
import type { InventoryChange } from "./upstream.types";

export class GatewayInventory extends WorkerEntrypoint<Env> {
  async toolsChanged(change: InventoryChange): Promise<void> {
    await sourceDiscovery(this.env, openDb(this.env.DB)).toolsChanged(change);
  }
}
