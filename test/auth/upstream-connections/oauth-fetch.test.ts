/**
 * The fetch of every OAuth exchange with an upstream's servers: the URLs come from documents the
 * upstream serves, so each is held to the source URL rules before anything is sent, and redirects
 * are never followed.
 */
import { describe, expect, it } from "vitest";
import { OAuthUrlRefused, oauthFetch } from "../../../workers/upstream-connections/oauth-fetch";

function recording() {
  const sent: Request[] = [];
  const base = async (input: string | URL | Request, init?: RequestInit) => {
    sent.push(new Request(input, init));
    return new Response("{}", { headers: { "content-type": "application/json" } });
  };
  return { sent, base };
}

describe("oauthFetch", () => {
  it("refuses a cloud-metadata or link-local endpoint before sending anything, even where private upstreams are allowed", async () => {
    const { sent, base } = recording();
    const guarded = oauthFetch(base, true);
    for (const url of [
      "http://169.254.169.254/.well-known/oauth-authorization-server",
      "http://[fe80::1]/token",
      "http://metadata.google.internal/x",
    ]) {
      await expect(guarded(url)).rejects.toBeInstanceOf(OAuthUrlRefused);
    }
    expect(sent).toEqual([]);
  });

  it("refuses plain http and private hosts where private upstreams are not allowed", async () => {
    const { sent, base } = recording();
    const guarded = oauthFetch(base, false);
    for (const url of ["http://auth.example.com/token", "https://127.0.0.1/token", "https://10.0.0.8/register"]) {
      await expect(guarded(url)).rejects.toBeInstanceOf(OAuthUrlRefused);
    }
    expect(sent).toEqual([]);
  });

  it("sends an allowed request with redirects not followed", async () => {
    const { sent, base } = recording();
    await oauthFetch(base, false)("https://auth.example.com/token", { method: "POST", body: "grant_type=refresh_token" });
    expect(sent).toHaveLength(1);
    expect(sent[0]!.redirect).toBe("manual");
    expect(sent[0]!.method).toBe("POST");
  });
});
