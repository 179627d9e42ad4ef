// @ts-check
// Server-sent events read from a fetch() body (EventSource cannot send an Authorization header
// or a POST body). Yields { event, data } with data as the joined `data:` lines.

/**
 * @param {Response} response
 * @returns {AsyncGenerator<{ event: string, data: string }>}
 */
export async function* readSse(response) {
  const reader = /** @type {ReadableStream<AllowSharedBufferSource>} */ (response.body).pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value;
    // Events end with a blank line; accept CRLF as the spec allows.
    buffer = buffer.replace(/\r\n?/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const event = parseBlock(block);
      if (event) yield event;
    }
    if (done) break;
  }
  const last = parseBlock(buffer);
  if (last) yield last;
}

/** @param {string} block */
function parseBlock(block) {
  let event = "message";
  const data = [];
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
  }
  return data.length > 0 ? { event, data: data.join("\n") } : null;
}
