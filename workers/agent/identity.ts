/**
 * Identity comes from authentication, never from the model. A tool whose input schema has a
 * `user_id`, `userId` or `user` property gets that property removed from the schema the model
 * sees, and set from the authenticated identity on every call; whatever the model put there is
 * dropped first.
 */
import { isJsonObject, type JsonObject } from "../lib/json";
import type { ChatIdentity } from "./agent.types";

export const IDENTITY_KEYS = ["user_id", "userId", "user"] as const;

export interface IdentityShape {
  /** The schema shown to the model: identity properties removed (also from `required`). */
  schema: JsonObject;
  /** Identity properties the real schema declares, with the JSON type it expects. */
  keys: { name: string; type: "string" | "number" }[];
}

function expectedType(property: unknown): "string" | "number" {
  if (!isJsonObject(property)) return "string";
  const type = property["type"];
  const types = Array.isArray(type) ? type : [type];
  return types.includes("integer") || types.includes("number") ? (types.includes("string") ? "string" : "number") : "string";
}

export function hideIdentity(inputSchema: JsonObject): IdentityShape {
  const properties = isJsonObject(inputSchema["properties"]) ? inputSchema["properties"] : undefined;
  if (!properties) return { schema: inputSchema, keys: [] };
  const keys = IDENTITY_KEYS.filter((key) => key in properties).map((name) => ({
    name: name as string,
    type: expectedType(properties[name]),
  }));
  if (keys.length === 0) return { schema: inputSchema, keys: [] };
  const hidden = new Set<string>(keys.map((key) => key.name));
  const visible = Object.fromEntries(Object.entries(properties).filter(([name]) => !hidden.has(name)));
  const required = Array.isArray(inputSchema["required"]) ? inputSchema["required"].filter((name) => !hidden.has(String(name))) : undefined;
  return { schema: { ...inputSchema, properties: visible, ...(required ? { required } : {}) }, keys };
}

/**
 * The model's arguments with every identity property (declared or not) removed, and the declared
 * ones set from `identity`. Without an identity (a CLI user with only a token) they stay unset,
 * so the server decides from the token.
 */
export function injectIdentity(args: JsonObject, shape: IdentityShape, identity: ChatIdentity | undefined): JsonObject {
  const clean: JsonObject = {};
  for (const [name, value] of Object.entries(args)) {
    if (!(IDENTITY_KEYS as readonly string[]).includes(name)) clean[name] = value;
  }
  if (!identity) return clean;
  for (const key of shape.keys) clean[key.name] = key.type === "number" ? identity.userId : String(identity.userId);
  return clean;
}
