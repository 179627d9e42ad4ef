/**
 * The bounds on what an upstream's tool list may put into the gateway (decision 0050), each a
 * `[vars]` setting of wrangler.toml: tools per source (more is refused), description and title
 * length (longer is shortened, with a warning), and the bytes a user's sources may list in all (a
 * discovery that would pass it is refused). Read by the source's Durable Object, which lists the
 * upstream, and by the discovery service, which writes the inventory.
 */
import { log } from "../../lib/log";

export interface InventoryLimits {
  toolsPerSource: number;
  descriptionChars: number;
  titleChars: number;
  listedBytesPerUser: number;
}

type InventoryLimitName =
  | "GATEWAY_MAX_TOOLS_PER_SOURCE"
  | "GATEWAY_MAX_TOOL_DESCRIPTION_CHARS"
  | "GATEWAY_MAX_TOOL_TITLE_CHARS"
  | "GATEWAY_MAX_LISTED_BYTES_PER_USER";
export type InventoryLimitVars = Partial<Pick<Env, InventoryLimitName>>;

/** Each limit's setting and the default it has when the setting is unset or not a positive integer. */
export const INVENTORY_SETTINGS = {
  toolsPerSource: { setting: "GATEWAY_MAX_TOOLS_PER_SOURCE", fallback: 1_000 },
  descriptionChars: { setting: "GATEWAY_MAX_TOOL_DESCRIPTION_CHARS", fallback: 4_096 },
  titleChars: { setting: "GATEWAY_MAX_TOOL_TITLE_CHARS", fallback: 120 },
  listedBytesPerUser: { setting: "GATEWAY_MAX_LISTED_BYTES_PER_USER", fallback: 4 * 1024 * 1024 },
} as const satisfies Record<keyof InventoryLimits, { setting: keyof InventoryLimitVars; fallback: number }>;

function positiveInteger(vars: InventoryLimitVars, { setting, fallback }: { setting: keyof InventoryLimitVars; fallback: number }): number {
  const value = vars[setting];
  if (value === undefined || value.trim() === "") return fallback;
  const n = Number(value);
  if (Number.isSafeInteger(n) && n > 0) return n;
  log.warn(`${setting} is not a positive integer; using the default`, { value, default: fallback });
  return fallback;
}

export function inventoryLimits(vars: InventoryLimitVars): InventoryLimits {
  return {
    toolsPerSource: positiveInteger(vars, INVENTORY_SETTINGS.toolsPerSource),
    descriptionChars: positiveInteger(vars, INVENTORY_SETTINGS.descriptionChars),
    titleChars: positiveInteger(vars, INVENTORY_SETTINGS.titleChars),
    listedBytesPerUser: positiveInteger(vars, INVENTORY_SETTINGS.listedBytesPerUser),
  };
}

/** 5242880 → "5,242,880": limits and counts in messages read as numbers. */
export function formatCount(n: number): string {
  return n.toLocaleString("en-US");
}
