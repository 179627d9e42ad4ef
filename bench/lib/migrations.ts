/**
 * The D1 migrations as single statements, in file order. drizzle-kit separates statements with
 * `--> statement-breakpoint`; splitting on `;` instead would cut the FTS triggers, whose
 * BEGIN … END bodies contain semicolons.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function migrationStatements(dir: string): string[] {
  const files = readdirSync(dir)
    .filter((name) => name.endsWith(".sql"))
    .sort();
  return files.flatMap((name) =>
    readFileSync(join(dir, name), "utf8")
      .split("--> statement-breakpoint")
      .map((statement) => statement.trim())
      // A chunk holding only comments is not a statement.
      .filter((statement) => statement.replace(/--[^\n]*/g, "").trim().length > 0),
  );
}
