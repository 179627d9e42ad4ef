/**
 * notifications/tools/list_changed on a singleton source's warm connection: the object re-lists the
 * tools over it and hands the list to the Worker's inventory entry point (GATEWAY_INVENTORY, an RPC
 * the Worker side owns: discovery/inventory.entrypoint.ts), which writes D1 through the discovery
 * service, so /mcp follows without a gateway request and the object touches only its own storage.
 * Notifications arriving while a refresh runs collapse into one more refresh.
 */
import type { McpClientConnection } from "../../mcp-client/connect";
import { listUpstreamTools } from "../discovery/upstream-listing";
import type { SourceStorage } from "./source-storage";
import type { WarmConnection } from "./upstream-sessions";

export interface ListChangedDeps {
  storage: SourceStorage;
  env: Env;
  /** The warm connection now: a refresh stops once its connection is no longer the warm one. */
  warm: () => WarmConnection | undefined;
  waitUntil: (promise: Promise<unknown>) => void;
}

export class ListChangedRefresh {
  /** The refresh running now, so notifications arriving meanwhile queue one more. */
  private refreshing: Promise<void> | undefined;
  private refreshAgain = false;

  constructor(private readonly deps: ListChangedDeps) {}

  notice(connection: McpClientConnection): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = (async () => {
      do {
        this.refreshAgain = false;
        const warm = this.deps.warm();
        if (!warm || warm.connection !== connection) return;
        const { config } = warm;
        try {
          const listing = await listUpstreamTools(connection, config.timeoutMs, this.deps.env);
          const staleAt = this.deps.storage.keepInventory(listing);
          const toolsJson = JSON.stringify(listing.tools);
          await this.deps.env.GATEWAY_INVENTORY.toolsChanged({ sourceId: config.sourceId, toolsJson, inventoryStaleAt: staleAt });
        } catch (error) {
          const message = error instanceof Error ? error.message : String(error);
          console.error(`gateway source ${config.slug}: refresh after list_changed failed: ${message}`);
        }
      } while (this.refreshAgain);
    })().finally(() => {
      this.refreshing = undefined;
    });
    this.deps.waitUntil(this.refreshing);
  }
}
