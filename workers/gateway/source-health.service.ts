/** Source health: each source's D1 row with its Durable Object's status(), by the rules in health.ts. */
import type { Db } from "../lib/db";
import { AppError } from "../lib/errors";
import { log } from "../lib/log";
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

  /** Counts by state over the deployment's sources, at most `limit` of them (public /health: no names, no owners). */
  async counts(limit: number): Promise<HealthCounts> {
    const [rows, total] = await Promise.all([repo.allSourcesWithToolCount(this.db, limit), repo.countSources(this.db)]);
    const states = await Promise.all(
      rows.map(async (row) => {
        try {
          return (await this.of(row, row.toolCount)).state;
        } catch (error) {
          log.warn("gateway health: source status unavailable", { source_id: row.id, error: String(error) });
          return "unknown" as const;
        }
      }),
    );
    return aggregateHealth(states, total);
  }
}
