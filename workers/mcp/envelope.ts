/**
 * JSON-RPC envelope rules every MCP endpoint applies before anything else reads a message — the
 * fast paths and the SDK path alike, so they can never disagree:
 * - A numeric id must be an integer JSON carries exactly (within ±(2^53−1)). A 5,000-digit id
 *   parses to Infinity and would be echoed as `null`; 12345678901234567 would come back as
 *   …568. Neither is the client's id, so such a message is refused (id null, as JSON-RPC asks
 *   when the id cannot be read) and never runs. Strings carry any id.
 * - Batches (a JSON array of messages) were removed in protocol revision 2025-06-18: refused when
 *   MCP-Protocol-Version names that revision or a later one. Without the header a client speaks
 *   2025-03-26, which allows them (decision 0026).
 */
import type { McpPost } from "./post";
import { invalidRequest, type RequestRefusal } from "./refusal";

/** The first revision without JSON-RPC batching; revisions are dates, so later ones compare greater. */
const BATCHING_REMOVED_IN = "2025-06-18";

/** The refusal of a post that breaks an envelope rule (a check of mcp/pipeline.ts). */
export function envelope(post: McpPost): RequestRefusal | undefined {
  const version = post.versionHeader;
  if (post.batch && version !== undefined && version >= BATCHING_REMOVED_IN) {
    return invalidRequest(
      `JSON-RPC batches were removed in protocol revision ${BATCHING_REMOVED_IN} (this request speaks ${version}); send one message per request`,
    );
  }
  if (post.messages.some((message) => message.unreadableId)) {
    return invalidRequest(
      `a numeric id must be an integer between -${Number.MAX_SAFE_INTEGER} and ${Number.MAX_SAFE_INTEGER}, which JSON carries exactly; use a string id for anything else`,
    );
  }
  return undefined;
}
