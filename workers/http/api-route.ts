/**
 * Declarative REST routes: each route names its zod schemas once; the same declaration validates
 * requests (one place, one error shape) and generates /openapi.json.
 */
import type { Context, Hono } from "hono";
import * as z from "zod";
import { refusal } from "../auth/access";
import { SCOPE_DESCRIPTIONS, type Scope } from "../auth/scopes";
import { parseInput } from "../lib/validation";
import type { AppEnv } from "./context";
import { readJsonBody } from "./json-body";

type Method = "get" | "post" | "patch" | "put" | "delete";
type AnyObject = z.ZodObject<z.ZodRawShape>;

export interface ApiRoute<P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends AnyObject = AnyObject> {
  method: Method;
  /** OpenAPI-style path: `/api/tasks/{task_id}`. */
  path: string;
  /**
   * Every scope a request needs; a token without them gets 403 with the step-up challenge before
   * the input is read. `[]` only for routes that show nothing of the user's (any valid token).
   */
  scopes: readonly Scope[];
  summary: string;
  tag: string;
  params?: P;
  query?: Q;
  body?: B;
  response: z.ZodType;
  status?: 200 | 201;
  handle(input: { params: z.output<P>; query: z.output<Q>; body: z.output<B> }, c: Context<AppEnv>): Promise<unknown>;
}

/**
 * Identity function that lets TypeScript infer the schemas' types for `handle`; the route is
 * returned as a plain ApiRoute (no cast: `handle` is a method, compared both ways) and is only
 * ever called with the input its own schemas parsed.
 */
export function defineRoute<P extends AnyObject = AnyObject, Q extends AnyObject = AnyObject, B extends AnyObject = AnyObject>(
  route: ApiRoute<P, Q, B>,
): ApiRoute {
  return route;
}

function honoPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ":$1");
}

export function mountRoutes(app: Hono<AppEnv>, routes: readonly ApiRoute[]): void {
  for (const route of routes) {
    if (!Array.isArray(route.scopes)) throw new Error(`Route ${route.method.toUpperCase()} ${route.path} declares no scopes`);
    app.on(route.method.toUpperCase(), honoPath(route.path), async (c) => {
      const refused = refusal(c.var.access, route.scopes);
      if (refused) return refused;
      const params = route.params ? parseInput(route.params, c.req.param()) : {};
      const query = route.query ? parseInput(route.query, c.req.query()) : {};
      const body = route.body ? parseInput(route.body, await readJsonBody(c.req.raw)) : {};
      const result = await route.handle({ params, query, body }, c);
      return c.json(result as object, route.status ?? 200);
    });
  }
}

const errorSchema = {
  type: "object",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "string" },
        message: { type: "string" },
        retry_after_ms: {
          type: "integer",
          description:
            "When a refusal may succeed if repeated (busy, rate_limited): wait this long; also in the Retry-After header, in seconds",
        },
        details: { type: "object" },
      },
      required: ["code", "message"],
    },
  },
  required: ["error"],
};

function jsonSchema(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<string, unknown>;
  return rest;
}

function parameters(schema: AnyObject | undefined, where: "path" | "query") {
  if (!schema) return [];
  return Object.entries(schema.shape).map(([name, field]) => ({
    name,
    in: where,
    required: where === "path" || !(field as z.ZodType).safeParse(undefined).success,
    schema: jsonSchema(field as z.ZodType, "input"),
    description: (field as z.ZodType).description,
  }));
}

export function buildOpenApi(routes: readonly ApiRoute[], info: { title: string; version: string }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const operation: Record<string, unknown> = {
      summary: route.summary,
      tags: [route.tag],
      security: [{ bearer: [] }, { oauth2: [...route.scopes] }],
      parameters: [...parameters(route.params, "path"), ...parameters(route.query, "query")],
      responses: {
        [String(route.status ?? 200)]: {
          description: "OK",
          content: { "application/json": { schema: jsonSchema(route.response, "output") } },
        },
        "4XX": { description: "Invalid request", content: { "application/json": { schema: errorSchema } } },
      },
    };
    if (route.body) {
      operation["requestBody"] = {
        required: true,
        content: { "application/json": { schema: jsonSchema(route.body, "input") } },
      };
    }
    (paths[route.path] ??= {})[route.method] = operation;
  }
  return {
    openapi: "3.1.0",
    info,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "An `mcpe_` API token (its scopes apply) or an OAuth access token" },
        oauth2: {
          type: "oauth2",
          flows: {
            authorizationCode: {
              authorizationUrl: "/authorize",
              tokenUrl: "/oauth/token",
              refreshUrl: "/oauth/token",
              scopes: SCOPE_DESCRIPTIONS,
            },
          },
        },
      },
    },
    paths,
  };
}
