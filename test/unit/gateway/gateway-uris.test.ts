/**
 * The naming rule of sources' resource URIs on /mcp (decision 0068): the contract's examples, the
 * URIs that cannot be named or are not a source's, and — by property — that the rewrite is undone
 * exactly and never changes the scheme.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gatewayUri, splitGatewayUri } from "../../../workers/gateway/sources/gateway-uris";
import { slugify } from "../../../workers/gateway/sources/sources.schema";

describe("gatewayUri and splitGatewayUri", () => {
  it.each([
    ["ui://weather/view.html", "ui://wx__weather/view.html"],
    ["file:///etc/x", "file://wx__/etc/x"],
    ["urn:isbn:123", "urn:wx__isbn:123"],
    ["demo://r/{id}", "demo://wx__r/{id}"],
    ["https://example.com/a?b#c", "https://wx__example.com/a?b#c"],
    ["ui://get-time/mcp-app.html", "ui://wx__get-time/mcp-app.html"],
  ])("names %s as %s and back", (uri, named) => {
    expect(gatewayUri("wx", uri)).toBe(named);
    expect(splitGatewayUri(named)).toEqual({ slug: "wx", uri });
  });

  it("cannot name a URI without a plain scheme", () => {
    expect(gatewayUri("wx", "{scheme}://x")).toBeUndefined();
    expect(gatewayUri("wx", "no-scheme-here")).toBeUndefined();
    expect(gatewayUri("wx", "1a://x")).toBeUndefined();
  });

  it("finds no source in a built-in's URI or a malformed one", () => {
    for (const uri of ["task://12", "ui://tasks/task-board.html", "urn:isbn:123", "ui://__x/y", "ui://Bad__x/y", "nope"]) {
      expect(splitGatewayUri(uri), uri).toBeUndefined();
    }
  });

  it("splits at the first __: a source's own URI may hold more", () => {
    expect(splitGatewayUri("demo://my_src__a__b/c")).toEqual({ slug: "my_src", uri: "demo://a__b/c" });
  });
});

const scheme = fc.stringMatching(/^[A-Za-z][A-Za-z0-9+.-]{0,8}$/);
const slug = fc.string({ minLength: 1, maxLength: 30 }).map(slugify);
const rest = fc.oneof(
  fc.string(),
  fc.string().map((text) => `//${text}`),
  fc.string().map((text) => `///${text}`),
);

describe("the rule, by property", () => {
  it("is undone exactly, for every slug and every URI with a scheme", () => {
    fc.assert(
      fc.property(slug, scheme, rest, (source, head, tail) => {
        const uri = `${head}:${tail}`;
        const named = gatewayUri(source, uri);
        expect(named).toBeDefined();
        expect(splitGatewayUri(named!)).toEqual({ slug: source, uri });
      }),
    );
  });

  it("keeps the scheme", () => {
    fc.assert(
      fc.property(slug, scheme, rest, (source, head, tail) => {
        expect(gatewayUri(source, `${head}:${tail}`)!.startsWith(`${head}:`)).toBe(true);
      }),
    );
  });

  it("keeps `//` where the URI had it, and adds none", () => {
    fc.assert(
      fc.property(slug, scheme, rest, (source, head, tail) => {
        expect(gatewayUri(source, `${head}:${tail}`)!.startsWith(`${head}://`)).toBe(tail.startsWith("//"));
      }),
    );
  });
});
