/** Reads a BEIR collection (corpus.jsonl, queries.jsonl, qrels/<split>.tsv) in place. */
import { createReadStream, readFileSync } from "node:fs";
import { createInterface } from "node:readline";

export interface BeirDocument {
  _id: string;
  title?: string;
  text: string;
  /** Not part of BEIR; honoured when a file carries it. */
  source?: string;
  metadata?: Record<string, unknown>;
}

export interface BeirQuery {
  _id: string;
  text: string;
}

/** query id → (doc id → graded relevance) */
export type Qrels = Map<string, Map<string, number>>;

export async function* readJsonl<T>(path: string): AsyncGenerator<T> {
  const lines = createInterface({ input: createReadStream(path, "utf8"), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    try {
      yield JSON.parse(line) as T;
    } catch (error) {
      throw new Error(`${path}:${n}: not a JSON line (${(error as Error).message})`);
    }
  }
}

export async function readAll<T>(path: string): Promise<T[]> {
  const out: T[] = [];
  for await (const item of readJsonl<T>(path)) out.push(item);
  return out;
}

export function readQrels(path: string): Qrels {
  const qrels: Qrels = new Map();
  const lines = readFileSync(path, "utf8").split("\n");
  for (const line of lines.slice(1)) {
    const [queryId, docId, score] = line.trim().split(/\t|\s+/);
    if (!queryId || !docId || score === undefined) continue;
    let judged = qrels.get(queryId);
    if (!judged) qrels.set(queryId, (judged = new Map()));
    judged.set(docId, Number(score));
  }
  return qrels;
}
