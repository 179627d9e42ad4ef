/**
 * Numbers that arrive as URL text (path parameters, query strings). `Number()` and `z.coerce`
 * read `0x10` as 16 and `+1`, ` 1`, `1\n`, `1e0`, `01` as 1, so one id would have many spellings
 * and a request could name a record its client never wrote. Here a number has one spelling:
 * decimal digits, no sign, no leading zero, nothing around them. The parsed value then meets the
 * same field schema MCP uses (range, integer, safe size).
 */
import * as z from "zod";

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

export function urlNumber<S extends z.ZodType<number, number>>(field: S) {
  return z
    .string()
    .regex(DECIMAL, "must be written in plain decimal digits, such as 42 (no sign, spaces, leading zero, exponent or hex)")
    .transform(Number)
    .pipe(field);
}
