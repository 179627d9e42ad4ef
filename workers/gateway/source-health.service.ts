/** Source health: each source's D1 row with its Durable Object's status(), by the rules in health.ts. */
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { aggregateHealth, type HealthCounts, sourceHealth } from "./health";
import * as repo from "./sources.repo";
import type { SourceHealth } from "./sources.schema";

export class SourceHealthService {
  constructor(
    private readonly db: Db,
    private readonly stub: (sourceId: number) => ReturnType<Env["GATEWAY_SOURCE"]["get"]>,
  ) {}

  private async of(row: repo.SourceRow, toolCount: number): Promise<SourceHealth> {
    return sourceHealth(row, toolCount, await this.stub(row.id).status());
  }

  /** One of the user's sources; another user's is not found. */
  async get(userId: number, id: number): Promise<SourceHealth> {
    const row = await repo.getSource(this.db, userId, id);
    if (!row) throw AppError.notFound("Source", id);
    return this.of(row, (await repo.toolsOf(this.db, row.id)).length);
  }

  async list(userId: number): Promise<{ sources: SourceHealth[]; count: number }> {
    const rows = await repo.listSources(this.db, userId);
    const sources = await Promise.all(rows.map((row) => this.of(row, row.toolCount)));
    return { sources, count: sources.length };
  }

  /** The user's sources, each with its health, and their counts by state (for /health with a token). */
  async summary(userId: number): Promise<HealthCounts & { mine: SourceHealth[] }> {
    const { sources } = await this.list(userId);
    return { ...aggregateHealth(sources.map((h) => h.state)), mine: sources };
  }
}
