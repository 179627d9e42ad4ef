/**
 * Pinned tool definitions (decision 0049): each tool's definition as stored — name, title,
 * description, schemas, annotations — is hashed (canonical JSON, SHA-256), and a tool is served
 * only while the hash the owner approved is its hash. Registering a source approves what its first
 * successful discovery lists; after that a changed definition, and a tool new since, is held until
 * the owner approves it over REST or in the console. This module decides; the repositories write.
 */
import { sha256Hex } from "../../lib/encoding";
import { isJsonObject, type JsonObject } from "../../lib/json";
import { canonicalJson } from "../sources/aliases";
import type { InventoryLimits } from "./inventory-limits";
import { boundTool } from "./listed-tools";
import type { HashedTool } from "../sources/sources.repo";
import type { UpstreamTool } from "../sources/upstream.types";

/** A definition as approved and as shown beside a held change (the keys the REST API uses). */
export interface PinnedDefinition {
  title: string | null;
  description: string;
  input_schema: JsonObject;
  output_schema: JsonObject | null;
  annotations: JsonObject;
}

type DefinitionFields = Pick<UpstreamTool, "title" | "description" | "inputSchema" | "outputSchema" | "annotations">;

export function definitionOf(tool: DefinitionFields): PinnedDefinition {
  return {
    title: tool.title,
    description: tool.description,
    input_schema: tool.inputSchema,
    output_schema: tool.outputSchema,
    annotations: tool.annotations,
  };
}

export function definitionHash(name: string, definition: PinnedDefinition): Promise<string> {
  return sha256Hex(canonicalJson({ name, ...definition }));
}

const utf8 = new TextEncoder();
const bytes = (text: string | null) => (text === null ? 0 : utf8.encode(text).byteLength);

/** What a tool adds to its owner's listing: the UTF-8 bytes of its stored texts (migration 0014 computes the same in SQL). */
export function definitionBytes(tool: Pick<UpstreamTool, "name"> & DefinitionFields): number {
  return (
    bytes(tool.name) +
    bytes(tool.title) +
    bytes(tool.description) +
    bytes(JSON.stringify(tool.inputSchema)) +
    (tool.outputSchema === null ? 0 : bytes(JSON.stringify(tool.outputSchema))) +
    bytes(JSON.stringify(tool.annotations))
  );
}

export async function hashTools(tools: readonly UpstreamTool[]): Promise<HashedTool[]> {
  return Promise.all(
    tools.map(async (tool) => ({ tool, hash: await definitionHash(tool.name, definitionOf(tool)), bytes: definitionBytes(tool) })),
  );
}

export interface StoredPin {
  name: string;
  definitionHash: string;
  definition: JsonObject;
}

/** A tool the new inventory holds back, and what it was before. */
export interface HeldTool {
  name: string;
  /** `new`: no approved definition of this name; `changed`: another definition was approved. */
  change: "new" | "changed";
  hash: string;
  approvedHash: string | null;
}

export interface PinPlan {
  /** The first successful discovery: the owner's registration approves every tool it lists. */
  approveAll: boolean;
  /** Pins from before pinning (empty hash) whose definition is still the tool's: given the tool's hash. */
  adopt: { name: string; hash: string }[];
  /** Every tool held by this inventory. */
  held: HeldTool[];
  /** Held tools whose definition this discovery saw first (a change detected now, recorded as an event). */
  detected: HeldTool[];
}

/** A legacy pin's definition as this version would have stored it: cleaned and bounded like a listing. */
async function legacyHash(name: string, definition: JsonObject, limits: InventoryLimits): Promise<string | undefined> {
  const { title, description, input_schema, output_schema, annotations } = definition;
  if (typeof description !== "string" || !isJsonObject(input_schema)) return undefined;
  const raw = {
    name,
    title: typeof title === "string" ? title : null,
    description,
    inputSchema: input_schema,
    outputSchema: isJsonObject(output_schema) ? output_schema : null,
    annotations: isJsonObject(annotations) ? annotations : {},
  };
  return definitionHash(name, definitionOf(boundTool(raw, limits)));
}

/**
 * What the new inventory means for its pins. `previousHashes`: the stored tools' hashes before this
 * discovery, by name (a held tool whose hash is unchanged was detected before, not now).
 */
export async function planPins(
  tools: readonly HashedTool[],
  pins: readonly StoredPin[],
  previousHashes: ReadonlyMap<string, string>,
  firstDiscovery: boolean,
  limits: InventoryLimits,
): Promise<PinPlan> {
  if (firstDiscovery) return { approveAll: true, adopt: [], held: [], detected: [] };
  const pinned = new Map(pins.map((pin) => [pin.name, pin]));
  const adopt: PinPlan["adopt"] = [];
  const held: HeldTool[] = [];
  for (const { tool, hash } of tools) {
    const pin = pinned.get(tool.name);
    if (pin?.definitionHash === hash) continue;
    if (pin?.definitionHash === "" && (await legacyHash(tool.name, pin.definition, limits)) === hash) {
      adopt.push({ name: tool.name, hash });
      continue;
    }
    const approvedHash = pin && pin.definitionHash !== "" ? pin.definitionHash : null;
    held.push({ name: tool.name, change: pin ? "changed" : "new", hash, approvedHash });
  }
  const detected = held.filter((tool) => previousHashes.get(tool.name) !== tool.hash);
  return { approveAll: false, adopt, held, detected };
}
