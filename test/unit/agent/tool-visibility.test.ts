import { describe, expect, it } from "vitest";
import { visibleToModel } from "../../../workers/agent/tool-visibility";

describe("visibleToModel", () => {
  it.each([
    ["no _meta", {}, true],
    ["no ui", { _meta: { other: 1 } }, true],
    ["ui without visibility", { _meta: { ui: { resourceUri: "ui://x/y.html" } } }, true],
    ["model and app", { _meta: { ui: { visibility: ["model", "app"] } } }, true],
    ["model only", { _meta: { ui: { visibility: ["model"] } } }, true],
    ["app only", { _meta: { ui: { visibility: ["app"] } } }, false],
    ["nobody", { _meta: { ui: { visibility: [] } } }, false],
    ["not a list (the default holds)", { _meta: { ui: { visibility: "app" } } }, true],
  ])("%s → %s", (_, tool, expected) => {
    expect(visibleToModel(tool)).toBe(expected);
  });
});
