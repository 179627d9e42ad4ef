/**
 * What becomes of a request body the answer never read. A request refused before its body is read
 * (401, 413, 429, 403 from the Origin check, an unknown route) still has the body arriving, and
 * workerd reads it after the answer has gone out: "Can't read from request stream after response
 * has been sent", an uncaught error in the logs — seen on every refused request from another
 * Worker's gateway (its discovery probing an OAuth-protected /mcp/tasks, for one). Nothing is lost: the
 * answer refused the request, and the client has it. So the entry finishes with the body first: a
 * small declared body is read to its end (its bytes are already on their way; reading them is
 * cheap, and workerd then has nothing left to read). Anything else — large, or of unknown length,
 * which a slow client could stretch — is cancelled, so no refusal ever waits for an upload it did
 * not want; workerd still logs the line for those, the price of not reading what was refused.
 * (Bodies of unknown length on /mcp are read by the body limit before any refusal anyway.)
 */

/** A declared body up to this size is read to its end rather than cancelled. */
export const DRAIN_MAX_BYTES = 64 * 1024;

export async function finishUnreadBody(request: Request): Promise<void> {
  const body = request.body;
  if (body === null || request.bodyUsed || body.locked) return;
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  try {
    if (Number.isSafeInteger(declared) && declared <= DRAIN_MAX_BYTES && !request.headers.has("transfer-encoding"))
      await request.arrayBuffer();
    else await body.cancel();
  } catch {
    // The client went away meanwhile: there is nothing left to finish.
  }
}
