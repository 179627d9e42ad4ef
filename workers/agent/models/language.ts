/**
 * English or Roman Urdu: which one the user wrote, and the local model's fixed phrases in both.
 * Roman Urdu has no fixed spelling, so detection counts words that are common in Roman Urdu and
 * (nearly) never English; one is enough in a short chat message.
 */
export type Language = "en" | "ur";

const ROMAN_URDU_WORDS = new Set([
  "hai",
  "hain",
  "ho",
  "hoga",
  "gaya",
  "gayi",
  "karo",
  "kardo",
  "karna",
  "karni",
  "karne",
  "kar",
  "do",
  "dena",
  "dikhao",
  "batao",
  "bataen",
  "mere",
  "mera",
  "meri",
  "mujhe",
  "aap",
  "ap",
  "kya",
  "kyun",
  "kal",
  "aaj",
  "parson",
  "ka",
  "ki",
  "ke",
  "ko",
  "se",
  "mein",
  "par",
  "pe",
  "wala",
  "wale",
  "wali",
  "hata",
  "hatao",
  "dhoondo",
  "naya",
  "nayi",
  "baje",
  "subah",
  "shaam",
  "raat",
  "dopahar",
  "roz",
  "hafte",
  "mahine",
  "kaam",
  "zaroori",
  "baqi",
  "salam",
  "salaam",
  "shukriya",
  "madad",
  "nahi",
  "nahin",
  "haan",
  "jee",
  "ji",
  "abhi",
  "waqt",
  "time",
  "kitne",
  "kaun",
  "konsa",
  "konse",
  "sakte",
  "sakta",
  "chahiye",
  "lena",
  "leni",
  "jana",
  "jaana",
  "yeh",
  "woh",
  "isay",
  "isko",
  "usay",
  "lagao",
  "lagana",
  "badlo",
]);
// Words in the set that are also ordinary English; they never decide alone.
const SHARED = new Set(["do", "time", "par", "pe", "ho"]);

export function languageOf(text: string): Language {
  const words = text.toLowerCase().match(/[a-z']+/g) ?? [];
  const hits = words.filter((word) => ROMAN_URDU_WORDS.has(word));
  return hits.some((word) => !SHARED.has(word)) ? "ur" : "en";
}

/** The intent router's fixed English phrases (intent/intents/conversation.ts) and their Roman Urdu. */
const ROUTER_PHRASES: readonly [string, string][] = [
  ["Sorry, I didn't understand that.", "Maaf kijiye, main yeh samajh nahi saka."],
  ["I can help with your tasks, in English or Roman Urdu:", "Main aap ke tasks mein madad kar sakta hoon, English ya Roman Urdu mein:"],
  [
    "No task tools are available right now, so I can only chat.",
    "Abhi task tools dastiyab nahi hain, is liye main sirf baat kar sakta hoon.",
  ],
  ["You're welcome!", "Koi baat nahi!"],
  ["Hi!", "Salam!"],
  // The router's questions when a task number or a title is missing (its examples stay bilingual).
  ["Which task is done? Give its number, e.g.", "Kaunsa task ho gaya? Us ka number batayein, jaise"],
  ["Which task should I delete? Give its number, e.g.", "Kaunsa task hatana hai? Us ka number batayein, jaise"],
  ["Which task should I rename? e.g.", "Kis task ka naam badalna hai? Jaise"],
  ["What should I remind you about? e.g.", "Kis cheez ka reminder lagana hai? Jaise"],
  ["Which task should I tag? e.g.", "Kis task par tag lagana hai? Jaise"],
  ["What should the task say? For example:", "Task mein kya likhna hai? Jaise:"],
  ["What should I search for? For example:", "Kya dhoondna hai? Jaise:"],
];

export function localizeRouterReply(text: string, language: Language): string {
  if (language === "en") return text;
  let out = text;
  for (const [english, urdu] of ROUTER_PHRASES) out = out.replace(english, urdu);
  out = out.replace(/^I understood that, but the (\S+) tool isn't available here\./, "Samajh gaya, lekin $1 tool yahan dastiyab nahi hai.");
  return out;
}

export const PHRASES = {
  en: {
    done: "Done.",
    found: "Here is what I found:",
    summary: "Here is your summary:",
    time: "Your local time:",
    tools: "These are the tools I can use:",
    failed: (tool: string) => `That didn't work (${tool}):`,
    ownTools: '- time and tools: "what time is it?", "which tools do you have?"',
  },
  ur: {
    done: "Ho gaya.",
    found: "Yeh raha jo mila:",
    summary: "Yeh raha aap ka khulasa:",
    time: "Aap ka local waqt:",
    tools: "Yeh tools main istemal kar sakta hoon:",
    failed: (tool: string) => `Yeh nahi ho saka (${tool}):`,
    ownTools: '- waqt aur tools: "kya time hai?", "kaun se tools hain?"',
  },
} as const;
