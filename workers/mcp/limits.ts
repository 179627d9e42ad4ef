/** Limits of the MCP endpoints, in their own module so the entry can apply them before loading MCP. */

/** Bodies over this are answered 413 before anything is parsed. */
export const MAX_MCP_BODY_BYTES = 1024 * 1024;
