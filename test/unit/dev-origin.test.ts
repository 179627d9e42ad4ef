import { describe, expect, it } from "vitest";
import { devOrigin, devPort } from "../../bin/lib/dev-origin";

describe("the local origin that npm run dev and npm run token print", () => {
  it("is localhost:8787 without PORT", () => {
    expect(devOrigin({})).toBe("http://localhost:8787");
  });

  it("follows PORT, so a login link opens the server that is running", () => {
    expect(devOrigin({ PORT: "9123" })).toBe("http://localhost:9123");
    expect(devPort({ PORT: " 9123 " })).toBe("9123");
  });

  it("refuses a PORT that is not a port, naming it", () => {
    expect(() => devPort({ PORT: "80a" })).toThrow("PORT=80a: expected a TCP port number (1–65535)");
    expect(() => devPort({ PORT: "70000" })).toThrow("PORT=70000");
  });
});
