/**
 * Query-side view of the FTS5 table `tasks_fts` (created by the custom migration
 * 0001_tasks_fts.sql, which drizzle-kit cannot express). Not part of drizzle.config's schema.
 */
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const tasksFts = sqliteTable("tasks_fts", {
  rowid: integer("rowid").notNull(),
  title: text("title").notNull(),
  description: text("description").notNull(),
});
