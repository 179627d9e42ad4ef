/**
 * Opaque paging cursors. They encode an offset today; being opaque, they can become keyset
 * cursors later without changing any client (decision 0004).
 *
 * A cursor comes back from the client, so it is input like any other: it must decode to exactly
 * what `encodeCursor` writes — one field, a non-negative safe integer — or it is refused as
 * invalid_input naming `cursor`. An offset no database can bind (1e99, 2^53) never reaches D1.
 */
import * as z from "zod";
import { AppError } from "./errors";

const cursorPayload = z.strictObject({ o: z.int().min(0).max(Number.MAX_SAFE_INTEGER) });

export function encodeCursor(offset: number): string {
  return btoa(JSON.stringify({ o: offset })).replace(/=+$/, "");
}

function parsePayload(cursor: string): unknown {
  try {
    return JSON.parse(atob(cursor));
  } catch {
    return undefined;
  }
}

/** The offset a cursor stands for (0 without one); `issuedBy` names the tool, for the error. */
export function decodeCursor(cursor: string | undefined, issuedBy: string): number {
  if (cursor === undefined || cursor === "") return 0;
  const payload = cursorPayload.safeParse(parsePayload(cursor));
  if (payload.success) return payload.data.o;
  throw AppError.invalid(`cursor: not a cursor returned by ${issuedBy}; omit it to start from the first page`, "cursor");
}
