/**
 * Params of spec methods, checked before the SDK sees them. The SDK (2.4.0) answers a spec method
 * whose params fail its wire schema with -32603 Internal error and a dump of the schema issues
 * (modelcontextprotocol/typescript-sdk#2284; the fix, #2492, is not released). JSON-RPC assigns
 * invalid params -32602, and "internal" tells a client the server broke. So each method the
 * endpoint serves is checked here against the SDK's own schema for it (`specTypeSchemas`), and a
 * failure is answered -32602 naming the parameter. A method the endpoint does not serve is left
 * to the SDK (-32601), as is tools/call, whose params the SDK already answers -32602.
 * Remove this module when the SDK ships the fix.
 */
import { type StandardSchemaV1, specTypeSchemas } from "@modelcontextprotocol/server";
import type { Check } from "./check";
import { capabilitiesOf } from "./hosting";
import { singleMessage } from "./post";
import { invalidParams } from "./refusal";

type ListName = "tools" | "resources" | "prompts" | "completions" | "logging";

interface SpecMethod {
  /** The SDK's schema for the whole request, `{ method, params }`. */
  schema: StandardSchemaV1;
  /** The capability under which the endpoint serves it; none = always served. */
  capability?: ListName;
  /** Only the 2025 revisions have it (2026-07-28 answers -32601). */
  legacyOnly?: boolean;
}

const SPEC_METHODS: Readonly<Record<string, SpecMethod>> = {
  initialize: { schema: specTypeSchemas.InitializeRequest, legacyOnly: true },
  "tools/list": { schema: specTypeSchemas.ListToolsRequest, capability: "tools" },
  "resources/list": { schema: specTypeSchemas.ListResourcesRequest, capability: "resources" },
  "resources/templates/list": { schema: specTypeSchemas.ListResourceTemplatesRequest, capability: "resources" },
  "resources/read": { schema: specTypeSchemas.ReadResourceRequest, capability: "resources" },
  "prompts/list": { schema: specTypeSchemas.ListPromptsRequest, capability: "prompts" },
  "prompts/get": { schema: specTypeSchemas.GetPromptRequest, capability: "prompts" },
  "completion/complete": { schema: specTypeSchemas.CompleteRequest, capability: "completions" },
  "logging/setLevel": { schema: specTypeSchemas.SetLevelRequest, capability: "logging", legacyOnly: true },
};

/** The first revision without initialize and logging/setLevel; revisions are dates and compare as text. */
const MODERN_FROM = "2026-07-28";

/**
 * The -32602 refusal of a single request whose spec method this endpoint serves (per its
 * capabilities) and whose params that method's schema rejects; undefined otherwise.
 */
export const specParams: Check = (post, { definition, ctx }) => {
  const message = singleMessage(post);
  if (message === undefined || message.id === undefined || message.method === undefined) return undefined;
  const { id, method, params } = message;
  const spec = Object.hasOwn(SPEC_METHODS, method) ? SPEC_METHODS[method] : undefined;
  if (!spec) return undefined;
  if (spec.legacyOnly && (post.versionHeader ?? "") >= MODERN_FROM) return undefined;
  if (spec.capability && !capabilitiesOf(definition, ctx)[spec.capability]) return undefined;
  const result = spec.schema["~standard"].validate({ method, ...(params === undefined ? {} : { params }) });
  if (result instanceof Promise || !result.issues) return undefined;
  const described = result.issues
    .slice(0, 3)
    .map(
      (issue) =>
        `${(issue.path ?? []).map((key) => (typeof key === "object" ? String(key.key) : String(key))).join(".") || "params"}: ${issue.message}`,
    )
    .join("; ");
  return invalidParams(id, `Invalid params for ${method}: ${described}`);
};
