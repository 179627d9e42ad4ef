/**
 * Upstream URL rules, table-driven: every address an attacker tried, every range of the IANA IPv4
 * and IPv6 Special-Purpose Address Registries (first and last address), every IPv6 form that
 * carries an IPv4 address, and the host-name spellings a resolver would still take for a local
 * name. Without ALLOW_PRIVATE_UPSTREAMS (production) only public https hosts pass; with it (local
 * dev, tests) plain http, loopback, private and special-purpose hosts pass too, but link-local and
 * cloud-metadata hosts never do.
 */
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { assertSafeUpstreamUrl, privateUpstreamsAllowed } from "../../../workers/lib/url-safety";
import { AppError } from "../../../workers/lib/errors";

/** The refusal message, or "ok" with the URL as the gateway would store it. */
function verdict(url: string, allowPrivate: boolean): string {
  try {
    return `ok ${assertSafeUpstreamUrl(url, allowPrivate).href}`;
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    expect(error.code).toBe("invalid_input");
    expect(error.details).toEqual({ field: "url" });
    return error.message;
  }
}

const NEVER = /is (?:link-local|a cloud metadata service)|embeds .* (?:link-local|a cloud metadata service)/;

function expectNever(urls: readonly string[]): void {
  for (const url of urls) {
    expect(verdict(url, true), `${url} with ALLOW_PRIVATE_UPSTREAMS`).toMatch(NEVER);
    expect(verdict(url, false), url).toMatch(NEVER);
  }
}

/** Refused in production, accepted (as written) in local dev. */
function expectDevOnly(urls: readonly string[], reason: RegExp): void {
  for (const url of urls) {
    expect(verdict(url, false), url).toMatch(reason);
    expect(verdict(url, true), `${url} with ALLOW_PRIVATE_UPSTREAMS`).toMatch(/^ok /);
  }
}

describe("addresses from the attack report", () => {
  it("never accepts link-local or metadata targets however they are spelt", () => {
    expectNever([
      "https://[::169.254.169.254]/",
      "https://[::ffff:0:169.254.169.254]/",
      "https://[64:ff9b::169.254.169.254]/",
      "https://[2002:a9fe:a9fe::1]/",
      "https://metadata.google.internal../",
      "https://192.0.0.192/",
    ]);
  });

  it("refuses loopback and special-purpose targets in production", () => {
    expectDevOnly(["https://[::127.0.0.1]/", "https://localhost../"], /loopback/);
    expectDevOnly(["https://[fec0::1]/"], /private/);
    expectDevOnly(["https://198.18.0.1/", "https://255.255.255.255/"], /special-purpose/);
  });
});

describe("the IANA IPv4 special-purpose registry, multicast and the rest of 240.0.0.0/4", () => {
  // [first, last, why refused]. Link-local is in the "never" table below.
  const ranges: [string, string, RegExp][] = [
    ["0.0.0.0", "0.255.255.255", /loopback/], // "this network": connecting to it reaches the local host
    ["10.0.0.0", "10.255.255.255", /private/],
    ["100.64.0.0", "100.127.255.255", /private/],
    ["127.0.0.0", "127.255.255.255", /loopback/],
    ["172.16.0.0", "172.31.255.255", /private/],
    ["192.0.0.0", "192.0.0.255", /special-purpose|metadata/],
    ["192.0.0.8", "192.0.0.11", /special-purpose/],
    ["192.0.0.170", "192.0.0.171", /special-purpose/],
    ["192.0.2.0", "192.0.2.255", /special-purpose/],
    ["192.31.196.0", "192.31.196.255", /special-purpose/],
    ["192.52.193.0", "192.52.193.255", /special-purpose/],
    ["192.88.99.0", "192.88.99.255", /special-purpose/],
    ["192.168.0.0", "192.168.255.255", /private/],
    ["192.175.48.0", "192.175.48.255", /special-purpose/],
    ["198.18.0.0", "198.19.255.255", /special-purpose/],
    ["198.51.100.0", "198.51.100.255", /special-purpose/],
    ["203.0.113.0", "203.0.113.255", /special-purpose/],
    ["224.0.0.0", "239.255.255.255", /special-purpose/],
    ["240.0.0.0", "255.255.255.254", /special-purpose/],
    ["255.255.255.255", "255.255.255.255", /special-purpose/],
  ];
  for (const [first, last, reason] of ranges) {
    it(`${first} – ${last}`, () => {
      expectDevOnly([`https://${first}/`, `https://${last}/`], reason);
    });
  }

  it("link-local 169.254.0.0/16 and the metadata addresses are never accepted", () => {
    expectNever([
      "https://169.254.0.0/",
      "https://169.254.255.255/",
      "https://169.254.169.254/",
      "https://169.254.170.2/",
      "https://100.100.100.200/",
      "https://192.0.0.192/",
    ]);
  });

  it("takes the URL parser's decimal, octal, hex and short IPv4 spellings for what they are", () => {
    expectDevOnly(["https://2130706433/", "https://0x7f.1/", "https://017700000001/", "https://127.1./", "https://0/"], /loopback/);
    expectDevOnly(["https://0300.0250.0.1/", "https://0xa.0.0.1/"], /private/);
    expectDevOnly(["https://4294967295/"], /special-purpose/);
    expectNever(["https://0xa9fea9fe/", "https://2852039166/", "https://0251.0376.0251.0376/", "https://169.254.43518/"]);
  });
});

describe("the IANA IPv6 special-purpose registry, multicast and everything outside 2000::/3", () => {
  const ranges: [string, string, RegExp][] = [
    ["::", "::", /loopback/],
    ["::1", "::1", /loopback/],
    ["64:ff9b::", "64:ff9b::ffff:ffff", /special-purpose|loopback/],
    ["64:ff9b:1::", "64:ff9b:1:ffff:ffff:ffff:ffff:ffff", /private|special-purpose|loopback/],
    ["100::", "100::ffff:ffff:ffff:ffff", /special-purpose/],
    ["100:0:0:1::", "100:0:0:1:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001::", "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose|loopback/],
    ["2001:1::1", "2001:1::3", /special-purpose/],
    ["2001:2::", "2001:2:0:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001:3::", "2001:3:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001:4:112::", "2001:4:112:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001:10::", "2001:1f:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001:20::", "2001:2f:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001:30::", "2001:3f:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2001:db8::", "2001:db8:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["2002::", "2002:ffff:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose|loopback/],
    ["2620:4f:8000::", "2620:4f:8000:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["3fff::", "3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["5f00::", "5f00:ffff:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    ["fc00::", "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", /private/],
    ["fec0::", "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", /private/],
    ["ff00::", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", /special-purpose/],
    // Not global unicast: unassigned or reserved space.
    ["4000::", "4000::1", /special-purpose/],
    ["e000::", "e000::1", /special-purpose/],
  ];
  for (const [first, last, reason] of ranges) {
    it(`${first} – ${last}`, () => {
      expectDevOnly([`https://[${first}]/`, `https://[${last}]/`], reason);
    });
  }

  it("link-local fe80::/10 and the IPv6 metadata addresses are never accepted", () => {
    expectNever([
      "https://[fe80::]/",
      "https://[febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff]/",
      "https://[fd00:ec2::254]/",
      "https://[fd20:ce::254]/",
    ]);
  });
});

function partition<T>(items: readonly T[], test: (item: T) => boolean): [T[], T[]] {
  return [items.filter(test), items.filter((item) => !test(item))];
}

describe("IPv6 forms that carry an IPv4 address are judged by it too", () => {
  /** Every IPv4-embedding form of `v4` (dotted quad), as URL hosts. */
  function embeddings(v4: string): string[] {
    const [a, b, c, d] = v4.split(".").map(Number) as [number, number, number, number];
    const hex = (x: number, y: number) => ((x << 8) | y).toString(16);
    const high = hex(a, b);
    const low = hex(c, d);
    const inverted = (x: number, y: number) => (((x ^ 0xff) << 8) | (y ^ 0xff)).toString(16);
    return [
      `[::ffff:${v4}]`, // IPv4-mapped
      `[::${v4}]`, // IPv4-compatible (deprecated)
      `[::ffff:0:${v4}]`, // IPv4-translated (SIIT)
      `[64:ff9b::${v4}]`, // NAT64 well-known prefix
      `[64:ff9b:1::${v4}]`, // local-use NAT64, /96 layout
      `[64:ff9b:1:${high}:${c.toString(16)}:${(d << 8).toString(16)}::]`, // local-use NAT64, /48 layout (u-octet skipped)
      `[2002:${high}:${low}::1]`, // 6to4
      `[2001:0:4136:e378:8000:63bf:${inverted(a, b)}:${inverted(c, d)}]`, // Teredo client (obfuscated)
      `[2001:0:${high}:${low}::1]`, // Teredo server
      `[2600:1f00::5efe:${v4}]`, // ISATAP, in a global prefix
      `[2600:1f00::200:5efe:${v4}]`, // ISATAP, universal bit set
    ];
  }

  it("refuses every form of a link-local or metadata IPv4 address, with or without ALLOW_PRIVATE_UPSTREAMS", () => {
    for (const v4 of ["169.254.169.254", "169.254.0.1", "100.100.100.200", "192.0.0.192"]) {
      expectNever(embeddings(v4).map((host) => `https://${host}/`));
    }
  });

  it("refuses every form of a loopback or private IPv4 address in production", () => {
    for (const [v4, kind] of [
      ["127.0.0.1", /loopback/],
      ["10.1.2.3", /private/],
      ["192.168.0.1", /private/],
    ] as const) {
      const [certain, alternate] = partition(embeddings(v4), (host) => !host.startsWith("[64:ff9b:1:") || host.startsWith("[64:ff9b:1::"));
      expectDevOnly(
        certain.map((host) => `https://${host}/`),
        kind,
      );
      // Under another local-use NAT64 prefix length only a never-reachable reading counts; the
      // prefix itself is private.
      expectDevOnly(
        alternate.map((host) => `https://${host}/`),
        /private address \(local-use/,
      );
    }
  });

  it("refuses even a public IPv4 address in these forms: none of them is a plain global unicast address", () => {
    const forms = embeddings("8.8.8.8").filter((host) => !host.startsWith("[2600:"));
    expectDevOnly(
      forms.map((host) => `https://${host}/`),
      /special-purpose|private/,
    );
    // ISATAP under a global prefix with a public IPv4 address is an ordinary global address.
    expect(verdict("https://[2600:1f00::5efe:8.8.8.8]/", false)).toBe("ok https://[2600:1f00::5efe:808:808]/");
  });
});

describe("host names", () => {
  it("normalises case and trailing dots before judging", () => {
    expectDevOnly(
      [
        "https://localhost/",
        "https://LOCALHOST/",
        "https://localhost./",
        "https://localhost../",
        "https://api.localhost./",
        "https://localhost.localdomain/",
        "https://ip6-localhost/",
        "https://%6c%6fcalhost/",
      ],
      /loopback/,
    );
    expectNever([
      "https://metadata.google.internal/",
      "https://METADATA.GOOGLE.INTERNAL./",
      "https://metadata.google.internal../",
      "https://metadata/",
      "https://metadata.goog./",
      "https://instance-data.ec2.internal./",
      "https://metadata.tencentyun.com/",
    ]);
  });

  it("refuses names that only resolve on a local network, and special-use names", () => {
    expectDevOnly(
      ["https://router/", "https://nas.local/", "https://db.internal./", "https://printer.home.arpa/", "https://box.lan/"],
      /private/,
    );
    expectDevOnly(["https://server.test/", "https://x.invalid/", "https://hidden.onion/", "https://a.alt/"], /special-use/);
  });

  it("refuses a name with an empty label", () => {
    expect(verdict("https://a..b/", true)).toMatch(/not a valid host name/);
    expect(verdict("https://a..b/", false)).toMatch(/not a valid host name/);
  });
});

describe("public upstreams and the rest of the URL", () => {
  it("accepts public https hosts as written (normalised by the URL parser)", () => {
    expect(verdict("https://mcp.example.com/mcp", false)).toBe("ok https://mcp.example.com/mcp");
    expect(verdict("https://MCP.Example.com./mcp", false)).toBe("ok https://mcp.example.com./mcp");
    expect(verdict("https://8.8.8.8/mcp", false)).toBe("ok https://8.8.8.8/mcp");
    expect(verdict("https://[2606:4700:4700::1111]/mcp", false)).toBe("ok https://[2606:4700:4700::1111]/mcp");
  });

  it("refuses plain http in production, credentials and other schemes always, and non-URLs", () => {
    expect(verdict("http://mcp.example.com/", false)).toMatch(/must use https/);
    expect(verdict("http://mcp.example.com/", true)).toBe("ok http://mcp.example.com/");
    expect(verdict("https://user:pw@mcp.example.com/", true)).toMatch(/credentials/);
    expect(verdict("ftp://mcp.example.com/", true)).toMatch(/must be http/);
    expect(verdict("not a url", true)).toMatch(/not a valid URL/);
  });

  it("agrees with ipaddr.js: nothing it places in a special range passes in production", () => {
    const v4 = [
      "0.1.2.3",
      "10.9.9.9",
      "100.70.0.1",
      "127.9.9.9",
      "169.254.1.1",
      "172.20.0.1",
      "192.0.0.1",
      "192.0.2.9",
      "192.31.196.1",
      "192.52.193.1",
      "192.88.99.1",
      "192.168.9.9",
      "192.175.48.1",
      "198.18.9.9",
      "198.51.100.9",
      "203.0.113.9",
      "224.1.1.1",
      "240.1.1.1",
      "255.255.255.255",
    ];
    const v6 = [
      "::",
      "::1",
      "fe80::9",
      "ff02::1",
      "fc00::9",
      "::ffff:1.2.3.4",
      "fec0::9",
      "100::9",
      "::ffff:0:1.2.3.4",
      "64:ff9b::1.2.3.4",
      "64:ff9b:1::9",
      "2002::9",
      "2001::9",
      "2001:2::9",
      "2001:3::9",
      "2001:4:112::9",
      "2001:10::9",
      "2001:20::9",
      "2001:30::9",
      "5f00::9",
      "2001:db8::9",
      "3fff::9",
      "2620:4f:8000::9",
    ];
    for (const address of [...v4, ...v6]) {
      const parsed = ipaddr.parse(address);
      expect(parsed.range(), address).not.toBe("unicast");
      const host = parsed.kind() === "ipv6" ? `[${address}]` : address;
      expect(verdict(`https://${host}/`, false), address).not.toMatch(/^ok /);
    }
  });
});

describe("allowSpecialUseNames (the OAuth client_id check)", () => {
  it("lets special-use names through and nothing else that production refuses", () => {
    const relaxed = (url: string) => {
      try {
        return `ok ${assertSafeUpstreamUrl(url, false, { allowSpecialUseNames: true }).href}`;
      } catch (error) {
        return (error as Error).message;
      }
    };
    expect(verdict("https://client.test/doc.json", false)).toMatch(/special-use name/);
    expect(relaxed("https://client.test/doc.json")).toBe("ok https://client.test/doc.json");
    expect(relaxed("https://client.example/doc.json")).toBe("ok https://client.example/doc.json");
    for (const refused of [
      "https://printer.local/",
      "https://localhost./",
      "https://intranet/",
      "https://10.0.0.1/",
      "https://[::ffff:127.0.0.1]/",
      "https://metadata.google.internal/",
      "http://client.test/",
    ]) {
      expect(relaxed(refused), refused).not.toMatch(/^ok /);
    }
  });
});

describe("ALLOW_PRIVATE_UPSTREAMS", () => {
  it("reads 1 or true only", () => {
    expect(privateUpstreamsAllowed({ ALLOW_PRIVATE_UPSTREAMS: "1" })).toBe(true);
    expect(privateUpstreamsAllowed({ ALLOW_PRIVATE_UPSTREAMS: "TRUE" })).toBe(true);
    expect(privateUpstreamsAllowed({ ALLOW_PRIVATE_UPSTREAMS: "0" })).toBe(false);
    expect(privateUpstreamsAllowed({})).toBe(false);
  });
});
