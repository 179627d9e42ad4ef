/** The router's date parser: local wall-clock phrases → UTC instants, from a fixed now and zone. */
import { describe, expect, it } from "vitest";
import { parseWhen } from "../../../workers/agent/intent/dates";
import { fromLocal, resolveTimeZone } from "../../../workers/agent/intent/zoned-time";

// Saturday 2026-11-21, 10:00 UTC.
const NOW = new Date("2026-11-21T10:00:00Z");
const at = (text: string, timeZone = "UTC", now = NOW): string | undefined => parseWhen(text, { now, timeZone })?.iso;

describe("parseWhen in UTC", () => {
  it.each([
    ["today", "2026-11-21T09:00:00.000Z"],
    ["aaj shaam", "2026-11-21T18:00:00.000Z"],
    ["tomorrow", "2026-11-22T09:00:00.000Z"],
    ["kal", "2026-11-22T09:00:00.000Z"],
    ["day after tomorrow", "2026-11-23T09:00:00.000Z"],
    ["parson", "2026-11-23T09:00:00.000Z"],
    ["friday", "2026-11-27T09:00:00.000Z"],
    ["next monday", "2026-11-23T09:00:00.000Z"],
    ["jumma", "2026-11-27T09:00:00.000Z"],
    ["peer ko", "2026-11-23T09:00:00.000Z"],
    ["saturday", "2026-11-28T09:00:00.000Z"],
    ["in 2 hours", "2026-11-21T12:00:00.000Z"],
    ["in 45 minutes", "2026-11-21T10:45:00.000Z"],
    ["2 ghante baad", "2026-11-21T12:00:00.000Z"],
    ["in 3 days", "2026-11-24T09:00:00.000Z"],
    ["at 5pm", "2026-11-21T17:00:00.000Z"],
    ["at 9am", "2026-11-22T09:00:00.000Z"],
    ["5 baje", "2026-11-21T17:00:00.000Z"],
    ["subah 9 baje", "2026-11-22T09:00:00.000Z"],
    ["kal subah 9 baje", "2026-11-22T09:00:00.000Z"],
    ["kal shaam 7 baje", "2026-11-22T19:00:00.000Z"],
    ["raat 10 baje", "2026-11-21T22:00:00.000Z"],
    ["tonight", "2026-11-21T21:00:00.000Z"],
    ["tomorrow at 17:30", "2026-11-22T17:30:00.000Z"],
    ["tomorrow noon", "2026-11-22T12:00:00.000Z"],
    ["2026-12-01", "2026-12-01T09:00:00.000Z"],
    ["2026-12-01T17:00Z", "2026-12-01T17:00:00.000Z"],
    ["dec 5", "2026-12-05T09:00:00.000Z"],
    ["5th december at 4pm", "2026-12-05T16:00:00.000Z"],
    ["jan 3", "2027-01-03T09:00:00.000Z"],
    ["next week", "2026-11-28T09:00:00.000Z"],
    ["agle hafte", "2026-11-28T09:00:00.000Z"],
  ])("%s → %s", (text, iso) => {
    expect(at(text)).toBe(iso);
  });

  it("finds nothing in text without a date", () => {
    for (const text of ["buy milk", "task 3", "peer review the PR", "12345", ""]) expect(at(text)).toBeUndefined();
  });

  it("rejects impossible dates and hours instead of rolling them over", () => {
    expect(at("2026-02-30")).toBeUndefined();
    expect(at("at 25:00")).toBeUndefined();
  });

  it("returns the spans it read, for titles to drop", () => {
    const text = "call mom tomorrow at 5pm";
    const when = parseWhen(text, { now: NOW, timeZone: "UTC" });
    const words = (when?.spans ?? []).map((s) => text.slice(s.start, s.end).trim()).sort();
    expect(words).toEqual(["at 5pm", "tomorrow"]);
  });
});

describe("parseWhen in other zones", () => {
  it("computes local times in Asia/Karachi (UTC+5)", () => {
    expect(at("kal 5 baje", "Asia/Karachi")).toBe("2026-11-22T12:00:00.000Z");
    // 10:00 UTC is 15:00 in Karachi, so 5pm today is still ahead.
    expect(at("at 5pm", "Asia/Karachi")).toBe("2026-11-21T12:00:00.000Z");
  });

  it("uses the local date, not the UTC one, for 'tomorrow'", () => {
    // 10:00 UTC is 23:00 on the 21st in Auckland (UTC+13): tomorrow is the 22nd there.
    expect(at("tomorrow at 9am", "Pacific/Auckland", new Date("2026-11-21T10:00:00Z"))).toBe("2026-11-21T20:00:00.000Z");
    // 11:30 UTC is already the 22nd in Auckland.
    expect(at("tomorrow at 9am", "Pacific/Auckland", new Date("2026-11-21T11:30:00Z"))).toBe("2026-11-22T20:00:00.000Z");
  });

  it("follows a DST change: London is on BST from 2026-03-29", () => {
    const now = new Date("2026-03-28T10:00:00Z");
    expect(at("tomorrow at 9am", "Europe/London", now)).toBe("2026-03-29T08:00:00.000Z");
    expect(at("today at 5pm", "Europe/London", now)).toBe("2026-03-28T17:00:00.000Z");
  });

  it("moves a time in a spring-forward gap forward by the gap, and takes the first of a fall-back overlap", () => {
    // New York skips 02:00–03:00 on 2026-03-08: 02:30 does not exist there, 03:30 EDT is 07:30 UTC.
    expect(fromLocal({ year: 2026, month: 3, day: 8, hour: 2, minute: 30 }, "America/New_York").toISOString()).toBe(
      "2026-03-08T07:30:00.000Z",
    );
    // 01:30 happens twice on 2026-11-01: first in EDT (05:30 UTC).
    expect(fromLocal({ year: 2026, month: 11, day: 1, hour: 1, minute: 30 }, "America/New_York").toISOString()).toBe(
      "2026-11-01T05:30:00.000Z",
    );
  });

  it("falls back to UTC for an unknown or empty zone", () => {
    expect(resolveTimeZone("Mars/Olympus")).toBe("UTC");
    expect(resolveTimeZone("")).toBe("UTC");
    expect(resolveTimeZone(undefined)).toBe("UTC");
    expect(resolveTimeZone("Asia/Karachi")).toBe("Asia/Karachi");
  });
});
