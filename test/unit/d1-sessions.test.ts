import { describe, expect, it } from "vitest";
import { laterBookmark, mayWrite } from "../../workers/lib/d1-sessions";

describe("which statements record a bookmark (lib/d1-sessions.ts)", () => {
  it("counts only a SELECT, or a WITH that names no write verb, as a read", () => {
    expect(mayWrite("select id from tasks")).toBe(false);
    expect(mayWrite("  SELECT 1")).toBe(false);
    expect(mayWrite("WITH hits AS (SELECT rowid FROM chunks_fts) SELECT * FROM hits")).toBe(false);
  });

  it("counts everything else as a write: a write taken for a read would lose its bookmark", () => {
    expect(mayWrite("insert into tasks (title) values (?)")).toBe(true);
    expect(mayWrite("UPDATE tasks SET title = ?")).toBe(true);
    expect(mayWrite("delete from outbox where id = ?")).toBe(true);
    expect(mayWrite("WITH old AS (SELECT id FROM audit_log) DELETE FROM audit_log WHERE id IN old")).toBe(true);
    expect(mayWrite("replace into hidden_tools values (?)")).toBe(true);
    expect(mayWrite("")).toBe(true);
  });

  it("keeps the later of two bookmarks, as D1 orders them", () => {
    const older = "0000000a-00000003-00004fd6-aaaa";
    const newer = "0000000a-00000004-00000001-bbbb";
    expect(laterBookmark(older, newer)).toBe(newer);
    expect(laterBookmark(newer, older)).toBe(newer);
    expect(laterBookmark(null, older)).toBe(older);
    expect(laterBookmark(older, null)).toBe(older);
    expect(laterBookmark(null, null)).toBeNull();
  });
});
