/**
 * The gateway's serving bounds (decision 0051), each a [vars] setting in wrangler.toml. A value
 * that is not a whole number within the setting's range falls back to its default, so a typo can
 * lift no bound; refusals name the setting, so whoever meets one knows what changes it.
 */
export const MAX_RESULT_BYTES_SETTING = "GATEWAY_MAX_RESULT_BYTES";
export const MAX_SOURCES_SETTING = "GATEWAY_MAX_SOURCES_PER_USER";
export const LIST_PAGE_SIZE_SETTING = "GATEWAY_TOOLS_LIST_PAGE_SIZE";

/**
 * 4 MiB: about a million tokens of text, more than any model's context holds, so no useful tool
 * result is refused; and small enough that the copies one result goes through (the bytes, the
 * string, the parsed object, the answer re-serialised) stay far inside a 128 MB isolate while
 * other requests share it.
 */
export const DEFAULT_MAX_RESULT_BYTES = 4 * 1024 * 1024;
/** Ten times what a heavy user registers; the bound is against a runaway script, not a person. */
export const DEFAULT_MAX_SOURCES = 100;
/**
 * Built-ins (about 30) plus a normal user's sources (a few servers of tens of tools each) fit in one
 * page, so the clients that never send a cursor see everything; a page of 500 tools is still
 * well under a megabyte of typical definitions.
 */
export const DEFAULT_LIST_PAGE_SIZE = 500;

export type GatewayLimitVars = Pick<Env, "GATEWAY_MAX_RESULT_BYTES" | "GATEWAY_MAX_SOURCES_PER_USER" | "GATEWAY_TOOLS_LIST_PAGE_SIZE">;

function wholeNumber(value: string | undefined, fallback: number, max: number): number {
  const text = value?.trim() ?? "";
  const n = Number(text);
  return /^\d+$/.test(text) && Number.isSafeInteger(n) && n >= 1 && n <= max ? n : fallback;
}

/** The most bytes one tool result of an upstream may have (1 byte … 64 MiB). */
export function maxResultBytes(env: Pick<GatewayLimitVars, "GATEWAY_MAX_RESULT_BYTES">): number {
  return wholeNumber(env.GATEWAY_MAX_RESULT_BYTES, DEFAULT_MAX_RESULT_BYTES, 64 * 1024 * 1024);
}

/** The most sources one user may register (1 … 10,000). */
export function maxSourcesPerUser(env: Pick<GatewayLimitVars, "GATEWAY_MAX_SOURCES_PER_USER">): number {
  return wholeNumber(env.GATEWAY_MAX_SOURCES_PER_USER, DEFAULT_MAX_SOURCES, 10_000);
}

/** Tools per page of /mcp tools/list (1 … 10,000). */
export function toolsListPageSize(env: Pick<GatewayLimitVars, "GATEWAY_TOOLS_LIST_PAGE_SIZE">): number {
  return wholeNumber(env.GATEWAY_TOOLS_LIST_PAGE_SIZE, DEFAULT_LIST_PAGE_SIZE, 10_000);
}
