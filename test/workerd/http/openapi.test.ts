import { describe, expect, it } from "vitest";
import { api } from "../../helpers/rest";
import { createUser } from "../../helpers/users";

interface Operation {
  summary: string;
  parameters: { name: string; in: string; required: boolean; schema: object }[];
  requestBody?: { content: { "application/json": { schema: { type: string } } } };
  responses: Record<string, { content: { "application/json": { schema: { type: string } } } }>;
}
interface OpenApi {
  openapi: string;
  info: { title: string; version: string };
  components: { securitySchemes: Record<string, object> };
  paths: Record<string, Record<string, Operation>>;
}

const ROUTES = [
  "post /api/tasks",
  "get /api/tasks",
  "get /api/tasks/search",
  "get /api/tasks/stats",
  "get /api/tasks/recurring",
  "get /api/tasks/{task_id}",
  "patch /api/tasks/{task_id}",
  "delete /api/tasks/{task_id}",
  "post /api/tasks/{task_id}/complete",
  "post /api/tasks/{task_id}/tags",
  "get /api/tasks/{task_id}/reminders",
  "post /api/tasks/{task_id}/reminders",
  "post /api/documents",
  "get /api/documents",
  "get /api/documents/{doc_id}",
  "delete /api/documents/{doc_id}",
  "get /api/rag/health",
  "post /api/sources",
  "get /api/sources",
  "get /api/sources/{source_id}",
  "patch /api/sources/{source_id}",
  "post /api/sources/{source_id}/refresh",
  "get /api/sources/{source_id}/changes",
  "post /api/sources/{source_id}/changes/approve",
  "delete /api/sources/{source_id}",
  "get /api/sources/{source_id}/health",
  "post /api/sources/{source_id}/authorize",
  "get /api/sources/{source_id}/authorization",
  "delete /api/sources/{source_id}/authorization",
  "get /api/gateway/hidden-tools",
  "put /api/gateway/hidden-tools/{name}",
  "delete /api/gateway/hidden-tools/{name}",
  "get /api/servers",
  "get /api/activity",
];
const WITH_BODY = [
  "post /api/tasks",
  "patch /api/tasks/{task_id}",
  "post /api/tasks/{task_id}/tags",
  "post /api/tasks/{task_id}/reminders",
  "post /api/documents",
  "post /api/sources",
  "patch /api/sources/{source_id}",
  "post /api/sources/{source_id}/changes/approve",
  "post /api/sources/{source_id}/authorize",
];

async function openApi(): Promise<OpenApi> {
  const res = await api<OpenApi>(undefined, "GET", "/openapi.json");
  expect(res.status).toBe(200);
  return res.body;
}

describe("/openapi.json", () => {
  it("is a public OpenAPI 3.1 document listing exactly the REST routes", async () => {
    const doc = await openApi();
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.title).toBeTruthy();
    expect(doc.components.securitySchemes["bearer"]).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes["oauth2"]).toMatchObject({
      type: "oauth2",
      flows: { authorizationCode: { authorizationUrl: "/authorize", tokenUrl: "/oauth/token" } },
    });
    const listed = Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`));
    expect(listed.sort()).toEqual([...ROUTES].sort());
  });

  it("gives every operation a summary, response and error schemas, path parameters and request bodies", async () => {
    const doc = await openApi();
    for (const route of ROUTES) {
      const [method, path] = route.split(" ") as [string, string];
      const operation = doc.paths[path]![method]!;
      expect(operation.summary, route).toBeTruthy();
      const success = operation.responses["200"] ?? operation.responses["201"];
      expect(success?.content["application/json"].schema.type, route).toBe("object");
      expect(operation.responses["4XX"]?.content["application/json"].schema, route).toMatchObject({ required: ["error"] });
      if (path.includes("{task_id}")) {
        expect(operation.parameters, route).toContainEqual(expect.objectContaining({ name: "task_id", in: "path", required: true }));
      }
      expect(operation.requestBody?.content["application/json"].schema.type, route).toBe(WITH_BODY.includes(route) ? "object" : undefined);
    }
  });

  it("documents query parameters with their constraints", async () => {
    const doc = await openApi();
    const list = doc.paths["/api/tasks"]!["get"]!;
    expect(list.parameters.map((parameter) => parameter.name).sort()).toEqual([
      "cursor",
      "limit",
      "priority",
      "search",
      "sort_by",
      "status",
      "tags",
    ]);
    expect(list.parameters.every((parameter) => parameter.in === "query" && !parameter.required)).toBe(true);
    expect(list.parameters.find((parameter) => parameter.name === "sort_by")?.schema).toMatchObject({
      enum: ["created", "due_date", "priority", "title"],
    });
    const search = doc.paths["/api/tasks/search"]!["get"]!;
    expect(search.parameters.find((parameter) => parameter.name === "query")).toMatchObject({ required: true });
  });

  it("lists only routes that exist", async () => {
    const doc = await openApi();
    const user = await createUser();
    for (const [path, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const res = await api<{ error?: { message: string } }>(user, method.toUpperCase(), path.replace("{task_id}", "1"), {
          headers: { "content-type": "application/json" },
          raw: method === "get" || method === "delete" ? undefined : "{}",
        });
        expect(res.body?.error?.message ?? "", `${method} ${path}`).not.toMatch(/^No route/);
      }
    }
  });
});
