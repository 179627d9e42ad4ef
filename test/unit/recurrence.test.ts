/** The next occurrence of a recurring task, as complete_task schedules it. */
import { describe, expect, it } from "vitest";
import { addPeriod } from "../../workers/tasks/recurrence";

describe("addPeriod", () => {
  it.each([
    ["2027-03-10T09:30:00.000Z", "daily", "2027-03-11T09:30:00.000Z"],
    ["2027-12-31T23:00:00.000Z", "daily", "2028-01-01T23:00:00.000Z"],
    ["2027-03-10T09:30:00.000Z", "weekly", "2027-03-17T09:30:00.000Z"],
    ["2027-02-25T00:00:00.000Z", "weekly", "2027-03-04T00:00:00.000Z"],
    ["2027-01-15T08:00:00.000Z", "monthly", "2027-02-15T08:00:00.000Z"],
    ["2027-12-15T08:00:00.000Z", "monthly", "2028-01-15T08:00:00.000Z"],
  ] as const)("%s + %s = %s", (from, pattern, next) => {
    expect(addPeriod(from, pattern)).toBe(next);
  });

  it.each([
    ["2027-01-31T12:00:00.000Z", "2027-02-28T12:00:00.000Z"],
    ["2028-01-31T12:00:00.000Z", "2028-02-29T12:00:00.000Z"],
    ["2027-03-31T12:00:00.000Z", "2027-04-30T12:00:00.000Z"],
    ["2027-08-31T12:00:00.000Z", "2027-09-30T12:00:00.000Z"],
  ])("monthly from %s clamps to the month's last day: %s", (from, next) => {
    expect(addPeriod(from, "monthly")).toBe(next);
  });
});
