/**
 * Opaque paging cursors: an offset (decision 0004), or for a list that grows at its head while a
 * client pages it (a person's activity: every call adds a row on top), a keyset — the last row's
 * time and id — so a page never repeats or skips a row when new ones arrive (decision 0060).
 *
 * A cursor comes back from the client, so it is input like any other: it must decode to exactly
 * what its encoder writes — one field, a non-negative safe integer; or a keyset's time and id — or
 * it is refused as invalid_input naming `cursor`. An offset no database can bind (1e99, 2^53) never reaches D1.
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

/** The position after the last row of a page ordered newest first: its time and its id. */
export interface KeysetPosition {
  at: string;
  id: string;
}

/** An ISO 8601 UTC time as the clock writes it (lib/clock.ts), and an id as our tables hold them. */
const keysetPayload = z.strictObject({
  t: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
  i: z.string().min(1).max(100),
});

export function encodeKeysetCursor(position: KeysetPosition): string {
  return btoa(JSON.stringify({ t: position.at, i: position.id })).replace(/=+$/, "");
}

/** The position a keyset cursor stands for (undefined without one: the first page); `issuedBy` names the route. */
export function decodeKeysetCursor(cursor: string | undefined, issuedBy: string): KeysetPosition | undefined {
  if (cursor === undefined || cursor === "") return undefined;
  const payload = keysetPayload.safeParse(parsePayload(cursor));
  if (payload.success) return { at: payload.data.t, id: payload.data.i };
  throw AppError.invalid(`cursor: not a cursor returned by ${issuedBy}; omit it to start from the first page`, "cursor");
}
