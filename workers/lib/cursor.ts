/**
 * Opaque paging cursors. They encode an offset today; being opaque, they can become keyset
 * cursors later without changing any client (decision 0004).
 */
import { AppError } from "./errors";

export function encodeCursor(offset: number): string {
  return btoa(JSON.stringify({ o: offset })).replace(/=+$/, "");
}

/** The offset a cursor stands for (0 without one); `issuedBy` names the tool, for the error. */
export function decodeCursor(cursor: string | undefined, issuedBy: string): number {
  if (cursor === undefined || cursor === "") return 0;
  try {
    const parsed: unknown = JSON.parse(atob(cursor));
    if (typeof parsed === "object" && parsed !== null && "o" in parsed) {
      const offset = parsed.o;
      if (typeof offset === "number" && Number.isInteger(offset) && offset >= 0) return offset;
    }
  } catch {
    // fall through to the error below
  }
  throw AppError.invalid(`cursor: not a cursor returned by ${issuedBy}; omit it to start from the first page`, "cursor");
}
