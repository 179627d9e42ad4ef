-- Full-text index over task titles and descriptions (FTS5, ranked with bm25).
-- External-content table: the text lives once, in tasks; triggers keep the index in step.
CREATE VIRTUAL TABLE `tasks_fts` USING fts5(title, description, content='tasks', content_rowid='id', tokenize='porter unicode61 remove_diacritics 2');
--> statement-breakpoint
CREATE TRIGGER `tasks_fts_after_insert` AFTER INSERT ON `tasks` BEGIN
  INSERT INTO tasks_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
CREATE TRIGGER `tasks_fts_after_delete` AFTER DELETE ON `tasks` BEGIN
  INSERT INTO tasks_fts(tasks_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `tasks_fts_after_update` AFTER UPDATE OF title, description ON `tasks` BEGIN
  INSERT INTO tasks_fts(tasks_fts, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
  INSERT INTO tasks_fts(rowid, title, description) VALUES (new.id, new.title, new.description);
END;
