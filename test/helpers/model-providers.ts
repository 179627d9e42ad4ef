/**
 * The model providers' wire formats for the adapter contract tests: the local server of
 * test/upstreams/model-providers.ts, and binding-shaped clients that call its Cloudflare REST
 * routes the way the Workers bindings behave — so the adapters, which take the `AI` and
 * `VECTORIZE` bindings, are exercised against the documented REST requests, results and errors.
 *
 * - `restAi` runs a model with POST /accounts/{id}/ai/run/{model} and, like the AI binding
 *   (cloudflare/workerd src/cloudflare/internal/ai-api.ts), returns `result`, or a stream when
 *   `stream` is set, and throws `InferenceUpstreamError("<code>: <message>")` on failure.
 * - `restVectorize` queries, upserts (NDJSON) and deletes by id with the Vectorize v2 REST API and,
 *   like the Vectorize binding (src/cloudflare/internal/vectorize-api.ts), throws
 *   `VECTOR_<OPERATION>_ERROR (code = <code>): <message>` on failure.
 */
import type { AiRunner } from "../../workers/rag/models/workers-ai";
import type { VectorizeOperations } from "../../workers/rag/retrieval/vectorize-index";
import { upstreams } from "./upstreams";

export const ACCOUNT_ID = "0123456789abcdef0123456789abcdef";
export const API_TOKEN = "test-cloudflare-api-token";

/** A fresh run on the server: its base URL and what it has received. */
export function providerRun(): { base: string; requests: () => Promise<RecordedRequest[]> } {
  const base = `${upstreams().model_providers}/${crypto.randomUUID()}`;
  return {
    base,
    requests: async () => {
      const res = await fetch(`${base}/_requests`);
      return res.json<RecordedRequest[]>();
    },
  };
}

export interface RecordedRequest {
  method: string;
  path: string;
  authorization: string | null;
  contentType: string | null;
  body: unknown;
}

interface Envelope<T> {
  success: boolean;
  result: T;
  errors: { code: number; message: string }[];
}

class InferenceUpstreamError extends Error {
  override readonly name = "InferenceUpstreamError";
}

export function restAi(base: string): AiRunner {
  return {
    async run(model, inputs, options) {
      const res = await fetch(`${base}/client/v4/accounts/${ACCOUNT_ID}/ai/run/${model}`, {
        method: "POST",
        headers: { authorization: `Bearer ${API_TOKEN}`, "content-type": "application/json" },
        body: JSON.stringify(inputs),
        ...(options?.signal ? { signal: options.signal } : {}),
      });
      if (!res.ok) {
        const envelope = await res.json<Envelope<unknown>>();
        const first = envelope.errors[0];
        throw new InferenceUpstreamError(first ? `${first.code}: ${first.message}` : `HTTP ${res.status}`);
      }
      if (inputs["stream"] === true) return res.body;
      return (await res.json<Envelope<unknown>>()).result;
    },
  };
}

async function vectorizeCall<T>(
  base: string,
  index: string,
  operation: "query" | "upsert" | "delete_by_ids",
  init: RequestInit,
): Promise<T> {
  const res = await fetch(`${base}/client/v4/accounts/${ACCOUNT_ID}/vectorize/v2/indexes/${index}/${operation}`, {
    method: "POST",
    ...init,
    headers: { authorization: `Bearer ${API_TOKEN}`, ...(init.headers as Record<string, string>) },
  });
  const envelope = await res.json<Envelope<T>>();
  if (!res.ok || !envelope.success) {
    const first = envelope.errors[0];
    const name = { query: "VECTOR_QUERY", upsert: "VECTOR_UPSERT", delete_by_ids: "VECTOR_DELETE" }[operation];
    throw new Error(`${name}_ERROR${first ? ` (code = ${first.code}): ${first.message}` : `: Status + ${res.status}`}`);
  }
  return envelope.result;
}

export function restVectorize(base: string, index: string): VectorizeOperations {
  return {
    query: (vector, options) =>
      vectorizeCall(base, index, "query", {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ...options, vector: Array.from(vector) }),
      }),
    upsert: (vectors) =>
      vectorizeCall(base, index, "upsert", {
        headers: { "content-type": "application/x-ndjson" },
        body: vectors.map((v) => JSON.stringify({ ...v, values: Array.from(v.values) })).join("\n"),
      }),
    deleteByIds: (ids) =>
      vectorizeCall(base, index, "delete_by_ids", {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ ids }),
      }),
  };
}
