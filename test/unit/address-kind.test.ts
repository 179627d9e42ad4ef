/** What kind of destination an IP literal is, for the upstream URL rules. */
import { describe, expect, it } from "vitest";
import { classifyAddress, ipLiteral } from "../../workers/lib/address-kind";

describe("classifyAddress", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["2606:4700::1111", "public"],
    ["127.0.0.1", "loopback"],
    ["0.0.0.0", "loopback"],
    ["::1", "loopback"],
    ["10.1.2.3", "private"],
    ["192.168.0.1", "private"],
    ["172.16.5.5", "private"],
    ["169.254.169.254", "metadata"],
    ["169.254.10.10", "link_local"],
    ["fe80::1", "link_local"],
    ["198.18.0.1", "special"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address).kind).toBe(kind);
  });

  it.each([
    ["::ffff:127.0.0.1", "loopback", "127.0.0.1"],
    ["::ffff:169.254.169.254", "metadata", "169.254.169.254"],
    ["64:ff9b::a00:1", "private", "10.0.0.1"],
    ["2002:a9fe:a9fe::1", "metadata", "169.254.169.254"],
  ])("an IPv6 address carrying IPv4 (%s) is judged by what it carries: %s via %s", (address, kind, via) => {
    expect(classifyAddress(address)).toMatchObject({ kind, via });
  });

  it("names the range it found", () => {
    expect(classifyAddress("198.18.0.1").range).toBe("benchmarking, 198.18.0.0/15");
    expect(classifyAddress("8.8.8.8").range).toBe("");
  });
});

describe("ipLiteral", () => {
  it.each([
    ["[::1]", "::1"],
    ["127.0.0.1", "127.0.0.1"],
    ["example.com", undefined],
    ["0x7f.1", undefined],
  ])("%s → %s", (host, literal) => {
    expect(ipLiteral(host)).toBe(literal);
  });
});
