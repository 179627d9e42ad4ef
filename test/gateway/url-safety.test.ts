/** Upstream URL rules without ALLOW_PRIVATE_UPSTREAMS (production) and with it (local dev). */
import { describe, expect, it } from "vitest";
import { assertSafeUpstreamUrl, privateUpstreamsAllowed } from "../../workers/gateway/url-safety";

describe("upstream URL safety", () => {
  it("always refuses link-local and cloud-metadata hosts", () => {
    for (const url of [
      "https://169.254.169.254/",
      "https://[fe80::1]/",
      "https://[febf::1]/",
      "https://metadata.google.internal/",
      "https://100.100.100.200/",
      "https://[fd00:ec2::254]/",
    ]) {
      expect(() => assertSafeUpstreamUrl(url, true), url).toThrow(/link-local|metadata/);
      expect(() => assertSafeUpstreamUrl(url, false), url).toThrow();
    }
  });

  it("refuses plain http, loopback and private addresses unless allowed", () => {
    for (const url of [
      "http://mcp.example.com/",
      "https://localhost/",
      "https://127.0.0.1/",
      "https://2130706433/",
      "https://[::1]/",
      "https://10.0.0.5/",
      "https://192.168.1.2/",
      "https://172.20.0.1/",
      "https://[fd12::1]/",
      "https://[::ffff:127.0.0.1]/",
    ]) {
      expect(() => assertSafeUpstreamUrl(url, false), url).toThrow();
      expect(assertSafeUpstreamUrl(url, true).href, url).toBeTruthy();
    }
  });

  it("accepts public https hosts and refuses credentials in the URL", () => {
    expect(assertSafeUpstreamUrl("https://mcp.example.com/mcp", false).hostname).toBe("mcp.example.com");
    expect(() => assertSafeUpstreamUrl("https://user:pw@mcp.example.com/", false)).toThrow(/credentials/);
  });

  it("reads ALLOW_PRIVATE_UPSTREAMS as 1 or true only", () => {
    expect(privateUpstreamsAllowed({ ALLOW_PRIVATE_UPSTREAMS: "1" })).toBe(true);
    expect(privateUpstreamsAllowed({ ALLOW_PRIVATE_UPSTREAMS: "TRUE" })).toBe(true);
    expect(privateUpstreamsAllowed({ ALLOW_PRIVATE_UPSTREAMS: "0" })).toBe(false);
    expect(privateUpstreamsAllowed({})).toBe(false);
  });
});
