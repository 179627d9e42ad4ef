/**
 * Words the router understands, English and Roman Urdu side by side. Roman Urdu has no fixed
 * spelling, so each entry lists the common variants (zaroori/zaruri, dikhao/dikha do).
 * Patterns are regex sources (no flags) so callers can embed them; all are matched case-insensitively.
 */

/** Joins alternatives into one non-capturing group, longest first so "tomorrow" wins over "tmr". */
export function oneOf(words: readonly string[]): string {
  return `(?:${[...words].sort((a, b) => b.length - a.length).join("|")})`;
}

/** 0 = Sunday, like Date#getUTCDay. "hafta" (Saturday) is left out: it also means "week". */
export const WEEKDAYS: readonly (readonly string[])[] = [
  ["sunday", "itwar", "itwaar", "etwar", "raviwar"],
  ["monday", "mon", "peer(?!\\s+review)", "pir", "somwar"],
  ["tuesday", "tues", "tue", "mangal", "mangalwar"],
  ["wednesday", "wed", "budh", "budhwar"],
  ["thursday", "thurs", "thur", "thu", "jumerat", "jumeraat", "guruwar"],
  ["friday", "fri", "jumma", "juma", "jummah", "jumah", "shukrawar"],
  ["saturday", "sat", "sanichar", "shaniwar"],
];

export const MONTHS: readonly (readonly string[])[] = [
  ["january", "jan"],
  ["february", "feb"],
  ["march", "mar"],
  ["april", "apr"],
  ["may"],
  ["june", "jun"],
  ["july", "jul"],
  ["august", "aug"],
  ["september", "sept", "sep"],
  ["october", "oct"],
  ["november", "nov"],
  ["december", "dec"],
];

/** Parts of the day: how a bare hour is read, and the hour used when no hour is given. */
export const DAYPARTS = [
  { words: ["subah", "subha", "savere", "sawere", "morning"], pm: false, defaultHour: 9 },
  { words: ["dopahar", "dopehar", "dopeher", "afternoon"], pm: true, defaultHour: 14 },
  { words: ["noon"], pm: true, defaultHour: 12 },
  { words: ["shaam", "sham", "evening"], pm: true, defaultHour: 18 },
  { words: ["raat", "rat", "night", "tonight"], pm: true, defaultHour: 21 },
] as const;

export const PRIORITY_LEVELS = {
  high: ["high", "highest", "urgent", "important", "zaroori", "zaruri", "zaroori", "zarori", "ahem", "aham", "asap", "critical"],
  medium: ["medium", "normal", "moderate", "darmiyani"],
  low: ["low", "lowest", "minor"],
} as const;
/** Only a priority when the word "priority" sits next to them: "top" and "kam" are common words too. */
export const PRIORITY_ONLY_NEAR_WORD = { high: ["top", "zyada", "ziada"], low: ["kam"], none: ["none", "no"] } as const;

export const RECURRENCE = {
  daily: ["every ?day", "everyday", "daily", "each day", "har roz", "har din", "rozana", "roz"],
  weekly: ["every week", "weekly", "each week", "har hafte", "har hafta", "har haftay", "haftawar"],
  monthly: ["every month", "monthly", "each month", "har mahine", "har maheene", "har mahina", "mahana"],
} as const;

/** Verb families: a message carries an intent through any of these words. */
export const VERBS = {
  complete: ["done", "complete", "completed", "finish", "finished", "tick off", "check off", "ho gaya", "ho gya", "ho gayi", "ho gyi", "ho chuka", "kar liya", "kar lia", "kar diya", "mukammal", "khatam", "pura", "poora"],
  delete: ["delete", "remove", "erase", "cancel", "drop", "discard", "hata do", "hatao", "hata", "hta do", "mita do", "mitao", "nikal do"],
  rename: ["rename", "retitle", "title", "naam", "name"],
  update: ["change", "update", "edit", "modify", "move", "postpone", "reschedule", "push", "shift", "set", "make", "badlo", "badal do", "tabdeel", "karo", "kar do"],
  remind: ["remind", "reminder", "yaad dila\\w*", "yad dila\\w*", "alert", "notify"],
  tag: ["tag", "tags", "tagged", "label", "labels"],
  priority: ["priority", "priorty", "prio"],
  search: ["find", "search", "look for", "looking for", "lookup", "look up", "dhoond\\w*", "dhund\\w*", "dhoondh\\w*", "talash", "khoj\\w*"],
  analytics: ["stats", "statistics", "analytics", "summary", "overview", "progress", "performance", "how am i doing", "how i'm doing", "how im doing", "how'm i doing", "completion rate", "productivity", "kaisa chal raha", "kaisi chal rahi", "kitne tasks", "kitna kaam", "hisaab", "khulasa", "report card"],
  recurring: ["recurring", "repeating", "repeat", "recurrent", "routine"],
  list: ["show", "list", "display", "view", "see", "what's", "whats", "what is", "what are", "what do i", "my tasks", "dikhao", "dikha do", "dikhaao", "dikha", "batao", "bata do", "mere", "meri", "mera", "sab"],
  greeting: ["hi", "hello", "hey", "hiya", "salam", "salaam", "assalam o alaikum", "assalamu alaikum", "aoa", "yo", "good morning", "good evening", "good afternoon"],
  thanks: ["thanks", "thank you", "thx", "shukriya", "shukria", "meherbani"],
  help: ["help", "madad", "what can you do", "kya kar sakte", "how does this work", "commands"],
} as const;

/** List filters by status. Pending is tested first so "not done" never reads as completed. */
export const STATUS_WORDS = {
  pending: ["pending", "remaining", "open", "incomplete", "unfinished", "not done", "left", "outstanding", "baqi", "baaki", "baki", "reh gaye", "rehte", "adhoore", "adhure"],
  completed: ["completed", "done", "finished", "ho gaye", "ho chuke", "mukammal", "khatam"],
} as const;

/** Phrases that open a new task. Anchored at the start by the add intent. */
export const ADD_OPENERS = [
  "(?:please |pls |plz )?(?:can you |could you )?(?:add|create|make|new|put|jot down|note down|write down|save)(?: me)?(?: an?| new| another| one)*(?: (?:high|low|medium|urgent|important|zaroori)(?: priority)?)?(?: (?:daily|weekly|monthly|recurring))? (?:task|todo|to-do|to do|item|reminder)s?(?: (?:to|for|called|named|titled|that says))?",
  "(?:add|create|new|naya|nayi|ek)(?: (?:naya|nayi))? (?:task|todo|to-do|kaam)",
  "(?:task|todo|to-do|kaam) (?:add|likh|note|daal|save)\\w*(?: (?:karo|kar do|kar lo|lo|do))?",
  "remind me to",
  "remind me(?= (?:that|i need|i have))",
  "remind me (?:about|of)",
  "(?:mujhe |muje )?yaa?d (?:dila\\w*|karwa\\w*)(?: (?:ke|ki|k))?",
  "(?:todo|to-do|task|note)\\s*:",
  "(?:note down|jot down|write down|add|note)",
  "(?:i need to|i have to|i must|i should|i gotta|need to|have to|don't forget to|dont forget to|don't let me forget to)",
] as const;

/** Endings that only say "this is a to-do" in Roman Urdu ("... karna hai"); stripped from titles. */
export const ADD_CLOSERS = ["hai", "hain", "he", "hy", "add karo", "add kar do", "likh lo", "likh do", "note karo", "yaad rakhna", "please", "pls", "plz"] as const;
/** "... karna hai" / "... karni hai" make any message a to-do, even without an opening verb. */
export const MUST_DO = "\\b(?:karna|karni|karne|lena|leni|dena|deni|jana|jaana|banana|lana|bhejna|parhna|likhna)\\s+(?:hai|hain|he|hy|h)\\b";

/** Words that carry no task content: removed from search queries and from "is anything left?" checks. */
export const FILLER = [
  "please", "pls", "plz", "can", "you", "could", "would", "me", "my", "mine", "i", "the", "a", "an", "all", "any", "some", "of", "for", "about", "with", "on", "in", "to", "that", "which", "are", "is", "have", "has", "do", "does",
  "task", "tasks", "todo", "todos", "to-do", "to-dos", "item", "items", "kaam", "list", "show", "what", "what's", "whats", "everything", "now", "there",
  "mere", "meri", "mera", "mujhe", "sab", "saare", "sare", "ke", "ki", "ka", "ko", "se", "mein", "me", "main", "wale", "wali", "wala", "jo", "hai", "hain", "kya", "karo", "do", "dikhao", "batao",
  "related", "regarding", "containing", "mentioning", "matching", "named", "called", "having", "tagged",
] as const;
