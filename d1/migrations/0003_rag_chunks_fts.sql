-- Lexical index over RAG chunks: FTS5 ranked with bm25 over (title, content), external content kept
-- by triggers (chunks are never updated in place: re-ingest deletes and inserts). The fts5vocab
-- table exposes document frequencies, which the local reranker needs for its BM25 features.
CREATE VIRTUAL TABLE `rag_chunks_fts` USING fts5(title, content, content='rag_chunks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE VIRTUAL TABLE `rag_chunks_vocab` USING fts5vocab(rag_chunks_fts, 'row');
--> statement-breakpoint
CREATE TRIGGER `rag_chunks_fts_after_insert` AFTER INSERT ON `rag_chunks` BEGIN
  INSERT INTO rag_chunks_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;
--> statement-breakpoint
CREATE TRIGGER `rag_chunks_fts_after_delete` AFTER DELETE ON `rag_chunks` BEGIN
  INSERT INTO rag_chunks_fts(rag_chunks_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
END;
