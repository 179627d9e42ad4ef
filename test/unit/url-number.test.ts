/** Numbers in URLs have one spelling (decision 0027). */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { urlNumber } from "../../workers/http/url-number";

const id = urlNumber(z.number().int().positive().max(Number.MAX_SAFE_INTEGER));

describe("urlNumber", () => {
  it.each(["1", "42", "9007199254740991"])("reads %s", (text) => {
    expect(id.parse(text)).toBe(Number(text));
  });

  it.each(["0x10", "+1", " 1", "1\n", "1e0", "01", "-1", "1.0", "", "١"])("refuses %j as not plain decimal digits", (text) => {
    const result = id.safeParse(text);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/plain decimal digits/);
  });

  it("then applies the field's own rules: 0 is not positive, 2^53 is not safe", () => {
    expect(id.safeParse("0").success).toBe(false);
    expect(id.safeParse("9007199254740992").success).toBe(false);
  });
});
