/** Reads a JSON request body with clear errors for the wrong content type, bad JSON and oversize bodies. */
import { AppError } from "../lib/errors";

export const MAX_JSON_BODY_BYTES = 64 * 1024;

export async function readJsonBody(request: Request, maxBytes = MAX_JSON_BODY_BYTES): Promise<unknown> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/(.+\+)?json\b/i.test(type)) {
    throw new AppError("invalid_input", "Content-Type must be application/json");
  }
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const text = await request.text();
  if (new TextEncoder().encode(text).byteLength > maxBytes) throw tooLarge(maxBytes);
  if (text.trim() === "") throw new AppError("invalid_input", "Request body is empty: expected a JSON object");
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AppError("invalid_input", `Request body is not valid JSON (${(error as Error).message})`);
  }
}

function tooLarge(maxBytes: number): AppError {
  return new AppError("payload_too_large", `Request body exceeds the limit of ${maxBytes} bytes`);
}
