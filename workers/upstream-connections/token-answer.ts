/**
 * The body of a successful token answer, read whole before the SDK sees it. The SDK reads it
 * itself otherwise, and a connection that breaks off mid-body then reaches us only as the failure
 * of the authorization it falls back to — indistinguishable from a refusal. Read here, a body that
 * did not arrive is seen as what it is (refresh-failure.ts counts it transient).
 */

/**
 * Longest token answer read. A token answer is a few hundred bytes, a few KiB with JWT tokens and
 * an id_token; a longer 2xx body is not one this client can use, and is not buffered.
 */
export const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;

/** The body was longer than MAX_TOKEN_ANSWER_BYTES; what was read is dropped. */
export const TOO_LONG = Symbol("token answer too long");

/**
 * `response` with its body read into memory (a Response the SDK can read as before), or TOO_LONG.
 * Rejects when the body could not be read whole (the connection broke off, the request's signal aborted).
 */
export async function readTokenAnswer(response: Response, maxBytes = MAX_TOKEN_ANSWER_BYTES): Promise<Response | typeof TOO_LONG> {
  const declared = Number(response.headers.get("content-length") ?? Number.NaN);
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return TOO_LONG;
  }
  const chunks: Uint8Array[] = [];
  let length = 0;
  if (response.body) {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return TOO_LONG;
      }
      chunks.push(value);
    }
  }
  const body = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    body.set(chunk, at);
    at += chunk.byteLength;
  }
  // The bytes are decoded already: the length and encoding the server declared no longer describe them.
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(body, { status: response.status, statusText: response.statusText, headers });
}
