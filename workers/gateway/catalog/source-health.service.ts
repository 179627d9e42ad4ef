/**
 * Source health: each source's D1 row with its Durable Object's status(), by the rules in
 * source-health.rules.ts. This isolate's stateless-call reports of the source are sent first, so
 * a health read after a call sees it; other isolates' reports arrive within one RPC of their calls.
 */
import type { Db } from "../../lib/db";
import { AppError } from "../../lib/errors";
import type { BreakerView, SourceObject } from "../calls/breaker-view";
import { authorizationStates, type AuthorizationState } from "../authorization/source-authorization.repo";
import { aggregateHealth, type HealthCounts, sourceHealth } from "./source-health.rules";
import * as repo from "../sources/sources.repo";
import type { SourceHealth } from "../sources/sources.schema";

export class SourceHealthService {
  constructor(
    private readonly db: Db,
    private readonly namespace: Env["GATEWAY_SOURCE"],
    private readonly breakers: BreakerView,
  ) {}

  private async of(row: repo.SourceRow, toolCount: number, authorization: AuthorizationState | null): Promise<SourceHealth> {
    await this.breakers.flush(row.id);
    const object: SourceObject = this.namespace.get(this.namespace.idFromName(String(row.id)));
    return sourceHealth(row, toolCount, await object.status(), authorization);
  }

  /** One of the user's sources; another user's is not found. */
  async get(userId: number, id: number): Promise<SourceHealth> {
    const row = await repo.getSource(this.db, userId, id);
    if (!row) throw AppError.notFound("Source", id);
    const [tools, states] = await Promise.all([repo.toolsOf(this.db, row.id), authorizationStates(this.db, userId)]);
    return this.of(row, tools.length, states.get(row.id) ?? null);
  }

  async list(userId: number): Promise<{ sources: SourceHealth[]; count: number }> {
    const [rows, states] = await Promise.all([repo.listSources(this.db, userId), authorizationStates(this.db, userId)]);
    const sources = await Promise.all(rows.map((row) => this.of(row, row.toolCount, states.get(row.id) ?? null)));
    return { sources, count: sources.length };
  }

  /** The user's sources, each with its health, and their counts by state (for /health with a token). */
  async summary(userId: number): Promise<HealthCounts & { mine: SourceHealth[] }> {
    const { sources } = await this.list(userId);
    return { ...aggregateHealth(sources.map((h) => h.state)), mine: sources };
  }
}
