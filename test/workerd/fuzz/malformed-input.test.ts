/**
 * Property-based fuzzing of every input surface, derived from what the Worker publishes: each
 * tool's inputSchema on /mcp/tasks, /mcp/rag, /mcp/thinking and the gateway /mcp (admin tools
 * included), and each operation of /openapi.json. For input the published schema rejects, the
 * answer is a refusal that names the field, with nothing written; for any input at all, never a
 * 5xx and never a stack trace or a server path.
 *
 * `npm test` runs a fixed seed and a bounded number of runs; `npm run fuzz` runs longer
 * (FUZZ_RUNS, FUZZ_SEED). A failure prints fast-check's seed, path and shrunk counterexample;
 * re-run it with FUZZ_SEED=<seed> npm run fuzz.
 */
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { apiRequestLimit, toolCallLimit } from "../../helpers/rate-limits";
import { createUser, type TestUser } from "../../helpers/users";
import { accepts, applyCorruption, corruptions, invalidValue, validBase, validValue, type JsonSchema } from "./json-schema";
import { leakOf, namesField, writtenState } from "./invariants";
import {
  type Answer,
  callOperation,
  callTool,
  ERAS,
  listOperations,
  listTools,
  MCP_ENDPOINTS,
  type OperationTarget,
  postMcp,
  type RestRequest,
  type ToolTarget,
} from "./targets";

/** Fixed in `npm test`, so a red run is reproducible; `npm run fuzz` picks one and prints it. */
const DEFAULT_SEED = 20_261_124;
const seed = env.FUZZ_SEED ? Number(env.FUZZ_SEED) : DEFAULT_SEED;
const longRun = env.FUZZ_RUNS !== undefined && env.FUZZ_RUNS !== "";
/** Runs per property: `npm test` keeps the whole file to a few seconds per property. */
const runs = (bounded: number) => (longRun ? Number(env.FUZZ_RUNS) : bounded);
const timeout = (bounded: number) => 30_000 + runs(bounded) * 300;
const settings = (bounded: number): fc.Parameters<unknown> => ({ seed, numRuns: runs(bounded), endOnFailure: false });

let tools: ToolTarget[];
let operations: OperationTarget[];

/**
 * The tool-call and REST rate limits (wrangler.toml, as shipped) are per user, and a run sends
 * thousands of requests; each user sends at most half of the smaller limit before the next one
 * takes over, so however fast the run goes no answer is a rate-limit refusal. Each user starts
 * empty and keeps what its accepted requests wrote.
 */
const REQUESTS_PER_USER = Math.floor(Math.min(toolCallLimit().limit, apiRequestLimit().limit) / 2);
let current: { user: TestUser; sent: number } | undefined;

async function fuzzUser(): Promise<TestUser> {
  if (!current || current.sent >= REQUESTS_PER_USER)
    current = { user: await createUser("fuzz-" + crypto.randomUUID().slice(0, 8)), sent: 0 };
  current.sent++;
  return current.user;
}

beforeAll(async () => {
  const user = await createUser("fuzz-" + crypto.randomUUID().slice(0, 8));
  tools = (await Promise.all(MCP_ENDPOINTS.map((endpoint) => listTools(endpoint, user)))).flat();
  operations = await listOperations();
});

function describeAnswer(answer: Answer): string {
  return `HTTP ${answer.status}: ${answer.text.slice(0, 400)}`;
}

/** The refusal must name `field`, leak nothing and leave the user's data as it was. */
async function expectRefusedWithoutWrites(field: string, send: (user: TestUser) => Promise<Answer>): Promise<void> {
  const user = await fuzzUser();
  const before = await writtenState(user);
  const answer = await send(user);
  const after = await writtenState(user);
  expect(leakOf(answer), describeAnswer(answer)).toBeUndefined();
  expect(answer.failed, `accepted input its schema rejects — ${describeAnswer(answer)}`).toBe(true);
  expect(namesField(answer.failure, field), `the refusal does not name ${field}: ${answer.failure.slice(0, 400)}`).toBe(true);
  expect(after, "a refused request wrote data").toBe(before);
}

describe("inputs the published schema rejects", () => {
  it("every MCP tool on every endpoint refuses a corrupted field, naming it, writing nothing", { timeout: timeout(120) }, async () => {
    const corruptible = tools.filter((tool) => corruptions(tool.schema).length > 0);
    expect(corruptible.length).toBeGreaterThan(30);
    const cases = fc
      .constantFrom(...corruptible)
      .chain((target) =>
        fc.record({ target: fc.constant(target), corruption: fc.oneof(...corruptions(target.schema)), era: fc.constantFrom(...ERAS) }),
      );
    await fc.assert(
      fc.asyncProperty(cases, async ({ target, corruption, era }) => {
        const args = applyCorruption(target.schema, validBase(target.schema), corruption);
        fc.pre(!accepts(target.schema, args));
        await expectRefusedWithoutWrites(corruption.path.join("."), (user) => callTool(target, user, era, args));
      }),
      settings(120),
    );
  });

  it(
    "every REST operation refuses a corrupted parameter or body field, naming it, writing nothing",
    { timeout: timeout(120) },
    async () => {
      const cases = fc
        .constantFrom(...operations.filter(hasInput))
        .chain((target) => fc.record({ target: fc.constant(target), broken: restCorruption(target) }));
      await fc.assert(
        fc.asyncProperty(cases, async ({ target, broken }) => {
          await expectRefusedWithoutWrites(broken.field, (user) => callOperation(target, user, broken.request));
        }),
        settings(120),
      );
    },
  );
});

describe("any input at all", () => {
  it("no MCP tool answers 5xx or shows the server's insides", { timeout: timeout(80) }, async () => {
    const cases = fc
      .constantFrom(...tools)
      .chain((target) => fc.record({ target: fc.constant(target), args: argumentsFor(target.schema), era: fc.constantFrom(...ERAS) }));
    await fc.assert(
      fc.asyncProperty(cases, async ({ target, args, era }) => {
        const answer = await callTool(target, await fuzzUser(), era, args);
        expect(leakOf(answer), describeAnswer(answer)).toBeUndefined();
      }),
      settings(80),
    );
  });

  it("no REST operation answers 5xx or shows the server's insides", { timeout: timeout(80) }, async () => {
    const cases = fc.constantFrom(...operations).chain((target) => fc.record({ target: fc.constant(target), request: anyRequest(target) }));
    await fc.assert(
      fc.asyncProperty(cases, async ({ target, request }) => {
        const answer = await callOperation(target, await fuzzUser(), request);
        expect(leakOf(answer), describeAnswer(answer)).toBeUndefined();
      }),
      settings(80),
    );
  });

  it("no JSON-RPC envelope, however malformed, gets a 5xx or the server's insides", { timeout: timeout(80) }, async () => {
    const cases = fc.record({ endpoint: fc.constantFrom(...MCP_ENDPOINTS), era: fc.constantFrom(...ERAS), body: anyEnvelope });
    await fc.assert(
      fc.asyncProperty(cases, async ({ endpoint, era, body }) => {
        const answer = await postMcp(endpoint, await fuzzUser(), era, body, "tools/call");
        expect(leakOf(answer), describeAnswer(answer)).toBeUndefined();
      }),
      settings(80),
    );
  });
});

// ---- arbitraries -------------------------------------------------------------------------------

/** An object nested `levels` deep, built without recursion. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}

/**
 * Values that broke this server or its kind before, mixed into every "any input" arbitrary: random
 * JSON alone almost never forms a decodable cursor or an instant past 9999.
 */
const HOSTILE_STRINGS = [
  btoa('{"o":1e99}').replace(/=+$/, ""),
  btoa('{"o":-1}').replace(/=+$/, ""),
  btoa('{"o":9007199254740992}').replace(/=+$/, ""),
  "9999-12-31T23:59:59-23:59",
  "0000-01-01T00:00:00+00:01",
  "0x10",
  "1e0",
  " 1",
  "1\n",
  "9".repeat(400),
  "a,b",
  "\u0000",
  "'; DROP TABLE tasks; --",
  "../../etc/passwd",
  "%00%2F",
  "x".repeat(70_000),
];
const hostile = fc.oneof(fc.constantFrom<unknown>(...HOSTILE_STRINGS, 2 ** 53, -0, 1e308, -1e308, 0.1, []), fc.constant(nested(1000)));
const anyJson = fc.oneof({ weight: 4, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: hostile });

/** Any value for one field: random JSON, a remembered hostile value, or a hostile string. */
const anyFieldValue = fc.oneof(anyJson, hostile, fc.constantFrom(...HOSTILE_STRINGS));

/**
 * Arguments for a tool: mostly a valid minimal call with one field set to anything (so the other
 * fields' validation cannot mask what that one value does), else the tool's own property names
 * with any values, else any JSON at all.
 */
function argumentsFor(schema: JsonSchema): fc.Arbitrary<unknown> {
  const names = Object.keys(schema.properties ?? {});
  if (names.length === 0) return anyJson;
  const base = validBase(schema);
  const oneField = fc
    .record({ name: fc.constantFrom(...names), value: anyFieldValue })
    .map(({ name, value }) => ({ ...base, [name]: value }));
  const shaped = fc.record(Object.fromEntries(names.map((name) => [name, anyFieldValue])), { requiredKeys: [] });
  return fc.oneof({ weight: 4, arbitrary: oneField }, { weight: 2, arbitrary: shaped }, { weight: 1, arbitrary: anyJson });
}

function hasInput(target: OperationTarget): boolean {
  return target.pathParams.length > 0 || target.queryParams.length > 0 || target.body !== undefined;
}

/** A path segment the router still sees as one segment (no "/", not "." or ".."). */
const isSegment = (value: unknown): value is string =>
  typeof value === "string" && value !== "" && value !== "." && value !== ".." && !value.includes("/");

function validRequest(target: OperationTarget): RestRequest {
  return {
    path: Object.fromEntries(target.pathParams.map((param) => [param.name, String(validValue(param.schema))])),
    query: Object.fromEntries(
      target.queryParams.filter((param) => param.required).map((param) => [param.name, String(validValue(param.schema))]),
    ),
    ...(target.body ? { body: validBase(target.body) } : {}),
  };
}

/** One parameter or body field of a valid request made invalid, with the field the refusal must name. */
function restCorruption(target: OperationTarget): fc.Arbitrary<{ field: string; request: RestRequest }> {
  const base = validRequest(target);
  const options: fc.Arbitrary<{ field: string; request: RestRequest }>[] = [];
  for (const param of target.pathParams) {
    options.push(
      invalidValue(param.schema)
        .filter(isSegment)
        .map((value) => ({ field: param.name, request: { ...base, path: { ...base.path, [param.name]: value } } })),
    );
  }
  for (const param of target.queryParams) {
    options.push(
      invalidValue(param.schema)
        .filter((value): value is string => typeof value === "string")
        .map((value) => ({ field: param.name, request: { ...base, query: { ...base.query, [param.name]: value } } })),
    );
  }
  const body = target.body;
  if (body) {
    for (const corruption of corruptions(body)) {
      options.push(
        corruption
          .map((c) => ({
            field: c.path.join("."),
            request: { ...base, body: applyCorruption(body, base.body as Record<string, unknown>, c) },
          }))
          .filter(({ request }) => !accepts(body, request.body)),
      );
    }
  }
  return fc.oneof(...options);
}

/**
 * Any request: mostly a valid one with one parameter set to any text (so the other parameters'
 * validation cannot mask it), else any strings in the path and query (named like the operation's
 * parameters) and any JSON body.
 */
function anyRequest(target: OperationTarget): fc.Arbitrary<RestRequest> {
  const base = validRequest(target);
  const text = fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom(...HOSTILE_STRINGS, "+1", "01", "-1", "99999999999999999999", "%"));
  const segment = text.filter(isSegment);
  const oneParameter: fc.Arbitrary<RestRequest>[] = [
    ...target.pathParams.map((param) => segment.map((value) => ({ ...base, path: { ...base.path, [param.name]: value } }))),
    ...target.queryParams.map((param) => text.map((value) => ({ ...base, query: { ...base.query, [param.name]: value } }))),
    ...(target.body ? [argumentsFor(target.body).map((body) => ({ ...base, body }))] : []),
  ];
  const anything = fc.record({
    path: fc.record(Object.fromEntries(target.pathParams.map((param) => [param.name, segment]))).map((path) => ({ ...base.path, ...path })),
    query: fc
      .record(Object.fromEntries([...target.queryParams.map((param) => param.name), "unknown"].map((name) => [name, text])), {
        requiredKeys: [],
      })
      .map((query) => Object.fromEntries(Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined))),
    body: target.body ? fc.oneof(argumentsFor(target.body), anyJson) : fc.constant(undefined),
  });
  return oneParameter.length > 0
    ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...oneParameter) }, { weight: 1, arbitrary: anything })
    : anything;
}

const METHODS = [
  "tools/call",
  "tools/list",
  "initialize",
  "ping",
  "resources/list",
  "resources/read",
  "prompts/get",
  "completion/complete",
  "server/discover",
  "notifications/initialized",
  "no/such",
];

const anyMessage = fc.record(
  {
    jsonrpc: fc.constantFrom<unknown>("2.0", "1.0", 2, null),
    id: fc.oneof(fc.integer(), fc.string({ maxLength: 10 }), fc.double(), fc.constant(null), fc.constant(1e300)),
    method: fc.oneof(fc.constantFrom(...METHODS), fc.string({ maxLength: 12 })),
    params: fc.oneof(
      anyJson,
      fc.record({ name: fc.constantFrom("add_task", "rag_ingest", "sequentialthinking", "gateway_add_source", "x"), arguments: anyJson }),
    ),
  },
  { requiredKeys: ["jsonrpc", "method"] },
);

/** Text of a body: a message with any fields, a batch, any JSON, or not JSON at all. */
const anyEnvelope = fc.oneof(
  { weight: 5, arbitrary: anyMessage.map((message) => JSON.stringify(message)) },
  { weight: 2, arbitrary: fc.array(anyMessage, { minLength: 0, maxLength: 3 }).map((batch) => JSON.stringify(batch)) },
  { weight: 1, arbitrary: anyJson.map((value) => JSON.stringify(value)) },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);
