import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createUser } from "../helpers/users";

describe("smoke", () => {
  it("health is public", async () => {
    const res = await exports.default.fetch("http://localhost/health");
    expect(res.status).toBe(200);
    const body = await res.json<{ status: string }>();
    expect(body.status).toBe("healthy");
  });

  it("creates a task over REST", async () => {
    const user = await createUser();
    const res = await exports.default.fetch("http://localhost/api/tasks", {
      method: "POST",
      headers: { ...user.headers, "content-type": "application/json" },
      body: JSON.stringify({ title: "Buy milk", tags: [" a ", "a", ""] }),
    });
    const body = await res.json();
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ task: { title: "Buy milk", description: "Buy milk", tags: ["a"] } });
  });
});
