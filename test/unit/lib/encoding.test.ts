/** The shared encodings: known SHA-256 vectors, base64url's alphabet and padding, and the decoder's two alphabets. */
import { describe, expect, it } from "vitest";
import { base64url, decodeBase64, sha256Hex } from "../../../workers/lib/encoding";

describe("encoding", () => {
  it("sha256Hex gives the standard digest as lower-case hex", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("base64url uses - and _ and drops the padding", () => {
    // 0xfb 0xff 0xbf is "+/+/" in standard base64; one byte would carry "==" padding.
    expect(base64url(new Uint8Array([0xfb, 0xff, 0xbf]))).toBe("-_-_");
    expect(base64url(new Uint8Array([0xff]))).toBe("_w");
    expect(base64url(new Uint8Array([]))).toBe("");
  });

  it("decodeBase64 reads both alphabets, padded or not, and rejects what is not base64", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(33));
    expect(decodeBase64(base64url(bytes))).toEqual(bytes);
    expect(decodeBase64(btoa(String.fromCharCode(...bytes)))).toEqual(bytes);
    expect(decodeBase64("_w")).toEqual(new Uint8Array([0xff]));
    expect(() => decodeBase64("not base64!")).toThrow();
  });
});
