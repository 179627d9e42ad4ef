/**
 * Query-side views of the FTS5 tables (created by the custom migrations 0001_tasks_fts.sql and
 * 0003_rag_chunks_fts.sql, which drizzle-kit cannot express). Not part of drizzle.config's schema.
 */
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const tasksFts = sqliteTable("tasks_fts", {
  rowid: integer("rowid").notNull(),
  title: text("title").notNull(),
  description: text("description").notNull(),
});

export const ragChunksFts = sqliteTable("rag_chunks_fts", {
  rowid: integer("rowid").notNull(),
  title: text("title").notNull(),
  content: text("content").notNull(),
});

/** fts5vocab 'row': for each term, the number of chunks (`doc`) and occurrences (`cnt`). */
export const ragChunksVocab = sqliteTable("rag_chunks_vocab", {
  term: text("term").notNull(),
  doc: integer("doc").notNull(),
  cnt: integer("cnt").notNull(),
});
