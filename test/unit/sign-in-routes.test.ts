/**
 * The sign-in wing's route table (workers/sign-in-routes.ts, decision 0063): every path where sign-in
 * and upstream connections are served has its route, and no request can match two of them — the
 * entry routes each OAuth request once, straight to its handler.
 */
import { describe, expect, it } from "vitest";
import * as signInPaths from "../../workers/auth/paths";
import { signInRoutes } from "../../workers/sign-in-routes";
import * as connectionPaths from "../../workers/upstream-connections/paths";

const EVERY_METHOD = ["GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH", "DELETE"] as const;

describe("the sign-in wing's routes", () => {
  it.each(Object.entries({ ...signInPaths, ...connectionPaths }))("route %s (%s)", (_name, path) => {
    expect(signInRoutes.some((route) => route.path === path)).toBe(true);
  });

  it("route each method and path once", () => {
    const seen = new Set<string>();
    for (const route of signInRoutes) {
      for (const method of route.methods ?? EVERY_METHOD) {
        const key = `${method} ${route.path}`;
        expect(seen.has(key), key).toBe(false);
        seen.add(key);
      }
    }
  });
});
