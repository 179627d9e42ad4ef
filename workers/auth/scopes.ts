/**
 * The scopes a token can carry, what each implies, and which scopes a resource serves.
 * Pure data and set logic: no library, no HTTP. Tools and REST routes declare the scopes they need
 * from this list; the checks (`missingScopes`) honour the implications, as MCP requires of servers.
 */

export const SCOPES = ["tasks:read", "tasks:write", "rag:read", "rag:write", "thinking", "gateway:read", "gateway:admin", "chat"] as const;

export type Scope = (typeof SCOPES)[number];

/** A broader scope grants the narrower ones: write implies read, admin implies read. */
const IMPLIES: Readonly<Partial<Record<Scope, readonly Scope[]>>> = {
  "tasks:write": ["tasks:read"],
  "rag:write": ["rag:read"],
  "gateway:admin": ["gateway:read"],
};

/** Plain words for the consent page: what approving the scope lets the app do. */
export const SCOPE_DESCRIPTIONS: Readonly<Record<Scope, string>> = {
  "tasks:read": "See your tasks, their reminders and statistics",
  "tasks:write": "Create, change, complete and delete your tasks and reminders",
  "rag:read": "Search and ask questions over your documents",
  "rag:write": "Add and delete documents in your collection",
  thinking: "Record and read your sequential-thinking history",
  "gateway:read": "See the MCP servers you connected to the gateway and call their tools",
  "gateway:admin": "Add, change, refresh and delete gateway sources, and hide tools",
  chat: "Talk to the chat agent on your behalf",
};

/**
 * Scopes the consent page never ticks in advance, whatever was asked: the user gives them only on
 * purpose. `gateway:admin` changes what the gateway calls and where (sources, their URLs), which a
 * steered client could turn into the user's upstream credentials.
 */
const GIVEN_ONLY_ON_PURPOSE: ReadonlySet<Scope> = new Set(["gateway:admin"]);

export function tickedByDefault(scope: Scope): boolean {
  return !GIVEN_ONLY_ON_PURPOSE.has(scope);
}

const KNOWN = new Set<string>(SCOPES);

export function isScope(value: string): value is Scope {
  return KNOWN.has(value);
}

/** The scopes of a granted list plus everything they imply; unknown strings are ignored. */
export function expandScopes(granted: Iterable<string>): ReadonlySet<Scope> {
  const result = new Set<Scope>();
  for (const value of granted) {
    if (!isScope(value)) continue;
    result.add(value);
    for (const implied of IMPLIES[value] ?? []) result.add(implied);
  }
  return result;
}

/** Every scope a principal with `granted` (already expanded) lacks of `needed`, in `needed`'s order. */
export function missingScopes(granted: ReadonlySet<Scope>, needed: readonly Scope[]): Scope[] {
  return needed.filter((scope) => !granted.has(scope));
}

/** Known scopes, each once, in catalogue order. */
export function normalizeScopes(values: Iterable<string>): Scope[] {
  const wanted = new Set(values);
  return SCOPES.filter((scope) => wanted.has(scope));
}

/** An API token without a scopes column grants everything (tokens made before scopes existed). */
export const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES);

/**
 * The scopes of `--scope` flags (repeatable, or space/comma separated): null when none are given
 * (a token with every scope); an Error naming the unknown ones otherwise.
 */
export function parseScopeFlags(flags: readonly string[]): Scope[] | null {
  const values = flags.flatMap((flag) => flag.split(/[\s,]+/)).filter((value) => value !== "");
  if (values.length === 0) return null;
  const unknown = values.filter((value) => !isScope(value));
  if (unknown.length > 0) throw new Error(`Unknown scope ${unknown.join(", ")}: use ${SCOPES.join(", ")}`);
  return normalizeScopes(values);
}
