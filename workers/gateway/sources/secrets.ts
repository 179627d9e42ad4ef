/**
 * Secret env-var values of sources, encrypted at rest with AES-256-GCM. The key is the Worker
 * secret SOURCE_SECRETS_KEY (32 bytes, base64; `wrangler secret put SOURCE_SECRETS_KEY`); tests
 * and `npm run dev` supply a development key. There is deliberately no built-in default: a
 * deployment without the secret refuses to store or use secrets instead of using a known key.
 *
 * The additional data binds each ciphertext to its owner and variable name, so a value copied
 * into another user's row (or under another header) does not decrypt.
 */
import { base64url, decodeBase64 } from "../../lib/encoding";
import { AppError } from "../../lib/errors";

const PREFIX = "v1";
const keys = new Map<string, Promise<CryptoKey>>();

function importKey(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) {
    throw new AppError("unavailable", "Source secrets are not configured: set the SOURCE_SECRETS_KEY secret (32 random bytes, base64)");
  }
  let key = keys.get(secret);
  if (!key) {
    let raw: Uint8Array<ArrayBuffer>;
    try {
      raw = decodeBase64(secret.trim());
    } catch (cause) {
      throw new AppError("unavailable", "SOURCE_SECRETS_KEY is not valid base64", { cause });
    }
    if (raw.byteLength !== 32) throw new AppError("unavailable", "SOURCE_SECRETS_KEY must decode to 32 bytes");
    key = crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
    keys.set(secret, key);
  }
  return key;
}

function additionalData(userId: number, name: string): Uint8Array<ArrayBuffer> {
  return new Uint8Array(new TextEncoder().encode(`mcp-edge:source-env:${userId}:${name.toLowerCase()}`));
}

export interface SecretBox {
  seal(userId: number, name: string, plaintext: string): Promise<string>;
  open(userId: number, name: string, sealed: string): Promise<string>;
}

export function secretBox(secret: string | undefined): SecretBox {
  return {
    async seal(userId, name, plaintext) {
      const key = await importKey(secret);
      const iv = crypto.getRandomValues(new Uint8Array(12));
      const data = new Uint8Array(new TextEncoder().encode(plaintext));
      const sealed = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: additionalData(userId, name) }, key, data);
      return `${PREFIX}.${base64url(iv)}.${base64url(new Uint8Array(sealed))}`;
    },
    async open(userId, name, sealed) {
      const key = await importKey(secret);
      const [prefix, iv, body] = sealed.split(".");
      if (prefix !== PREFIX || !iv || !body) throw new AppError("internal", "Stored source secret has an unknown format");
      try {
        const plain = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv: decodeBase64(iv), additionalData: additionalData(userId, name) },
          key,
          decodeBase64(body),
        );
        return new TextDecoder().decode(plain);
      } catch (cause) {
        throw new AppError("unavailable", "A source secret cannot be decrypted (was SOURCE_SECRETS_KEY rotated?); set it again", {
          cause,
        });
      }
    },
  };
}
