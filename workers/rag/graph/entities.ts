/**
 * Local entity and relation extraction for the GraphRAG pipelines — no model, no network:
 *  - acronym: tokens mixing capitals and digits or several capitals (TNF, IL-6, p53, BRCA1);
 *  - name: runs of capitalised words that do not merely start a sentence (Alzheimer, Hodgkin lymphoma);
 *  - concept: two adjacent content words that recur in the chunk or appear in the title
 *    (stem cells, insulin resistance), and the title's own content words (microbiome, measles).
 * Keys are normalised (lower-case, stemmed, hyphens dropped) so mentions across documents meet.
 * A relation is two entities in one sentence; its weight counts such sentences.
 */
import { sentences } from "../text/chunk";
import { stem } from "../text/porter";
import { isStopword } from "../text/tokenize";

export type EntityKind = "acronym" | "name" | "concept";

export interface Entity {
  name: string;
  label: string;
  kind: EntityKind;
  count: number;
}

export interface Relation {
  source: string;
  target: string;
  weight: number;
}

const MAX_ENTITIES_PER_CHUNK = 30;
const MAX_RELATIONS_PER_CHUNK = 120;
const WORD = /[\p{L}\p{N}][\p{L}\p{N}'-]*[\p{L}\p{N}]|[\p{L}\p{N}]/gu;

function normalizeWord(word: string): string {
  return stem(word.toLowerCase().replace(/['-]/g, ""));
}

function isAcronym(word: string): boolean {
  const bare = word.replace(/-/g, "");
  if (bare.length < 2 || bare.length > 15 || /^\d+$/.test(bare) || !/\p{L}/u.test(bare)) return false;
  const capitals = (bare.match(/\p{Lu}/gu) ?? []).length;
  const digits = (bare.match(/\d/g) ?? []).length;
  // TNF, DNA, IL-6, p53, BRCA1, COVID-19
  return capitals >= 2 || (digits > 0 && bare.length <= 10);
}

function isCapitalised(word: string): boolean {
  return /^\p{Lu}\p{Ll}{2,}$/u.test(word);
}

/** Entity mentions of one sentence, in order (keys may repeat). */
function sentenceEntities(sentence: string, conceptKeys: ReadonlySet<string> | "all"): Entity[] {
  const found: Entity[] = [];
  const tokens = sentence.match(WORD) ?? [];
  for (let i = 0; i < tokens.length; i++) {
    const word = tokens[i]!;
    if (isAcronym(word)) {
      found.push({ name: word.toLowerCase().replace(/-/g, ""), label: word, kind: "acronym", count: 1 });
      continue;
    }
    if (isCapitalised(word) && !isStopword(word.toLowerCase())) {
      let j = i;
      while (j + 1 < tokens.length && j - i < 3 && isCapitalised(tokens[j + 1]!)) j++;
      // A lone capitalised first word is just the start of the sentence.
      if (i > 0 || j > i) {
        const run = tokens.slice(i, j + 1);
        found.push({ name: run.map(normalizeWord).join(" "), label: run.join(" "), kind: "name", count: 1 });
        i = j;
        continue;
      }
    }
  }
  const lower = tokens.map((t) => t.toLowerCase());
  for (let i = 0; i + 1 < lower.length; i++) {
    const [a, b] = [lower[i]!, lower[i + 1]!];
    if (!/^\p{L}{3,}$/u.test(a) || !/^\p{L}{3,}$/u.test(b) || isStopword(a) || isStopword(b)) continue;
    const name = `${normalizeWord(a)} ${normalizeWord(b)}`;
    if (conceptKeys === "all" || conceptKeys.has(name)) found.push({ name, label: `${a} ${b}`, kind: "concept", count: 1 });
  }
  if (conceptKeys !== "all") {
    for (const word of lower) {
      const key = normalizeWord(word);
      if (/^\p{L}{4,}$/u.test(word) && !isStopword(word) && conceptKeys.has(key))
        found.push({ name: key, label: word, kind: "concept", count: 1 });
    }
  }
  return found;
}

/** Concept bigrams worth keeping: seen twice in the text, or once in the title. */
function recurringConcepts(title: string, text: string): Set<string> {
  const counts = new Map<string, number>();
  for (const e of sentenceEntities(text, "all")) if (e.kind === "concept") counts.set(e.name, (counts.get(e.name) ?? 0) + 1);
  const keep = new Set([...counts].filter(([, n]) => n >= 2).map(([name]) => name));
  for (const e of sentenceEntities(title, "all")) if (e.kind === "concept") keep.add(e.name);
  for (const word of title.toLowerCase().match(WORD) ?? []) {
    if (/^\p{L}{4,}$/u.test(word) && !isStopword(word)) keep.add(normalizeWord(word));
  }
  return keep;
}

export function extractGraph(title: string, text: string): { entities: Entity[]; relations: Relation[] } {
  const concepts = recurringConcepts(title, text);
  const bySentence = [title, ...sentences(text)].filter(Boolean).map((s) => sentenceEntities(s, concepts));
  const entities = new Map<string, Entity>();
  for (const mention of bySentence.flat()) {
    const seen = entities.get(mention.name);
    if (seen) seen.count++;
    else entities.set(mention.name, { ...mention });
  }
  const kept = [...entities.values()].sort((a, b) => b.count - a.count || a.name.localeCompare(b.name)).slice(0, MAX_ENTITIES_PER_CHUNK);
  const keptNames = new Set(kept.map((e) => e.name));
  const relations = new Map<string, Relation>();
  for (const mentions of bySentence) {
    const names = [...new Set(mentions.map((m) => m.name).filter((n) => keptNames.has(n)))].sort();
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const key = `${names[i]}\u0000${names[j]}`;
        const seen = relations.get(key);
        if (seen) seen.weight++;
        else relations.set(key, { source: names[i]!, target: names[j]!, weight: 1 });
      }
    }
  }
  const strongest = [...relations.values()].sort((a, b) => b.weight - a.weight).slice(0, MAX_RELATIONS_PER_CHUNK);
  return { entities: kept, relations: strongest };
}

/** Entity keys a query may mention: every acronym, name and adjacent content-word pair, plus single words. */
export function queryEntityKeys(query: string): string[] {
  const keys = new Set(sentenceEntities(query, "all").map((e) => e.name));
  for (const word of query.match(WORD) ?? []) {
    if (!isStopword(word.toLowerCase()) && word.length >= 3) keys.add(normalizeWord(word));
  }
  return [...keys];
}
