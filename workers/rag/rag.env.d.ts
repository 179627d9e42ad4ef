/**
 * Optional bindings and secrets of the RAG server, typed by hand (wrangler types only sees what
 * wrangler.toml declares, and these are off by default so local dev and tests need no account).
 * Adding `[ai]` or `[[vectorize]]` to wrangler.toml makes `wrangler types` declare them: then
 * delete the matching line here.
 */
interface RagOptionalBindings {
  /** Workers AI: embeddings, reranking and generation when configured. */
  AI?: Ai;
  /** Vectorize index for chunk vectors (dimensions must match the embedder). */
  VECTORIZE?: Vectorize;
  /** Bearer key for RAG_OPENAI_BASE_URL (`wrangler secret put RAG_OPENAI_API_KEY`). */
  RAG_OPENAI_API_KEY?: string;
}

declare global {
  // worker-configuration.d.ts declares both the global Env and Cloudflare.Env; extend both alike.
  interface Env extends RagOptionalBindings {}
  namespace Cloudflare {
    interface Env extends RagOptionalBindings {}
  }
}

export {};
