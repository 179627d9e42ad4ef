/**
 * What every remote embedder checks before its vectors reach an index: one vector per text, each
 * of the configured size (a model or setting mismatch would otherwise corrupt the index or fail
 * deep inside a query), returned as unit vectors.
 */
import { AppError } from "../../lib/errors";
import { normalize } from "./hashed-embedder";

export function checkedVectors(
  embedder: string,
  vectors: readonly (readonly number[])[],
  texts: number,
  dimensions: number,
): Float32Array[] {
  if (vectors.length !== texts) {
    throw new AppError("upstream_error", `${embedder} returned ${vectors.length} embeddings for ${texts} texts`);
  }
  const wrong = vectors.find((v) => v.length !== dimensions);
  if (wrong) {
    throw new AppError(
      "upstream_error",
      `${embedder} returned ${wrong.length}-dimensional embeddings; RAG_EMBEDDING_DIMENSIONS is ${dimensions}: set it to the model's size`,
    );
  }
  return vectors.map((v) => normalize(Float32Array.from(v)));
}
