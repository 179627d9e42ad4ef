/**
 * The Porter (1980) stemmer, as SQLite's FTS5 `porter` tokenizer applies it, so terms we score in
 * the isolate (reranking, late interaction, entity matching) agree with the terms FTS5 indexed.
 */
const VOWELS = new Set(["a", "e", "i", "o", "u"]);

function isConsonant(word: string, i: number): boolean {
  const ch = word[i]!;
  if (VOWELS.has(ch)) return false;
  if (ch === "y") return i === 0 ? true : !isConsonant(word, i - 1);
  return true;
}

/** m() of the algorithm: the number of VC sequences in word[0..end). */
function measure(word: string, end: number): number {
  let n = 0;
  let i = 0;
  while (i < end && isConsonant(word, i)) i++;
  while (i < end) {
    while (i < end && !isConsonant(word, i)) i++;
    if (i >= end) break;
    n++;
    while (i < end && isConsonant(word, i)) i++;
  }
  return n;
}

function hasVowel(word: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(word, i)) return true;
  return false;
}

function endsDoubleConsonant(word: string): boolean {
  const n = word.length;
  return n >= 2 && word[n - 1] === word[n - 2] && isConsonant(word, n - 1);
}

/** *o: stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(word: string, end: number): boolean {
  if (end < 3) return false;
  if (!isConsonant(word, end - 1) || isConsonant(word, end - 2) || !isConsonant(word, end - 3)) return false;
  const last = word[end - 1]!;
  return last !== "w" && last !== "x" && last !== "y";
}

/** Replaces `suffix` with `replacement` when the remaining stem has measure > `minMeasure`. */
function replaceIf(word: string, suffix: string, replacement: string, minMeasure: number): string | undefined {
  if (!word.endsWith(suffix)) return undefined;
  const stemEnd = word.length - suffix.length;
  return measure(word, stemEnd) > minMeasure ? word.slice(0, stemEnd) + replacement : word;
}

function step1a(w: string): string {
  if (w.endsWith("sses")) return w.slice(0, -2);
  if (w.endsWith("ies")) return w.slice(0, -2);
  if (w.endsWith("ss")) return w;
  if (w.endsWith("s")) return w.slice(0, -1);
  return w;
}

function step1b(w: string): string {
  if (w.endsWith("eed")) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w;
  let stem: string | undefined;
  if (w.endsWith("ed") && hasVowel(w, w.length - 2)) stem = w.slice(0, -2);
  else if (w.endsWith("ing") && hasVowel(w, w.length - 3)) stem = w.slice(0, -3);
  if (stem === undefined) return w;
  if (stem.endsWith("at") || stem.endsWith("bl") || stem.endsWith("iz")) return `${stem}e`;
  if (endsDoubleConsonant(stem) && !/[lsz]$/.test(stem)) return stem.slice(0, -1);
  if (measure(stem, stem.length) === 1 && endsCvc(stem, stem.length)) return `${stem}e`;
  return stem;
}

function step1c(w: string): string {
  return w.endsWith("y") && hasVowel(w, w.length - 1) ? `${w.slice(0, -1)}i` : w;
}

const STEP2: [string, string][] = [
  ["ational", "ate"], ["tional", "tion"], ["enci", "ence"], ["anci", "ance"], ["izer", "ize"],
  ["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"],
  ["ization", "ize"], ["ation", "ate"], ["ator", "ate"], ["alism", "al"], ["iveness", "ive"],
  ["fulness", "ful"], ["ousness", "ous"], ["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"],
  ["logi", "log"],
];
const STEP3: [string, string][] = [
  ["icate", "ic"], ["ative", ""], ["alize", "al"], ["iciti", "ic"], ["ical", "ic"], ["ful", ""], ["ness", ""],
];
const STEP4 = [
  "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou",
  "ism", "ate", "iti", "ous", "ive", "ize",
];

function applyFirst(w: string, rules: readonly [string, string][], minMeasure: number): string {
  // The longest matching suffix decides, as in the reference implementation.
  let best: [string, string] | undefined;
  for (const rule of rules) if (w.endsWith(rule[0]) && (!best || rule[0].length > best[0].length)) best = rule;
  return best ? (replaceIf(w, best[0], best[1], minMeasure) ?? w) : w;
}

function step4(w: string): string {
  let best: string | undefined;
  for (const suffix of STEP4) if (w.endsWith(suffix) && (!best || suffix.length > best.length)) best = suffix;
  if (!best) return w;
  const stemEnd = w.length - best.length;
  if (measure(w, stemEnd) <= 1) return w;
  if (best === "ion" && !/[st]$/.test(w.slice(0, stemEnd))) return w;
  return w.slice(0, stemEnd);
}

function step5(w: string): string {
  if (w.endsWith("e")) {
    const m = measure(w, w.length - 1);
    if (m > 1 || (m === 1 && !endsCvc(w, w.length - 1))) w = w.slice(0, -1);
  }
  if (measure(w, w.length) > 1 && endsDoubleConsonant(w) && w.endsWith("l")) w = w.slice(0, -1);
  return w;
}

const cache = new Map<string, string>();
const CACHE_LIMIT = 200_000;

/** Stems one lower-case token. Tokens of 2 letters or fewer, and tokens with digits, are kept. */
export function stem(token: string): string {
  if (token.length <= 2 || /[^a-z]/.test(token)) return token;
  const hit = cache.get(token);
  if (hit !== undefined) return hit;
  const result = step5(step4(applyFirst(applyFirst(step1c(step1b(step1a(token))), STEP2, 0), STEP3, 0)));
  if (cache.size < CACHE_LIMIT) cache.set(token, result);
  return result;
}
