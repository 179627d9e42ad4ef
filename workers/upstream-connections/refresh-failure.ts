/**
 * Why a refresh of an upstream token failed, told apart by what the authorization server did:
 * **refused** (it answered that the grant is dead — the tokens go, the owner connects again) or
 * **transient** (it could not be reached, ran out of time, broke off its answer, or answered 5xx /
 * 429 / `temporarily_unavailable` — the tokens stay, the next call tries again).
 *
 * The SDK's `auth()` cannot tell us: after a refresh that failed with a network error, a body that
 * is not an OAuth error, or `server_error`, it falls back to starting a new authorization, and
 * after `invalid_grant` / `invalid_client` it drops the tokens and starts one too — either way
 * what reaches us is the fallback's failure, not the cause. So every request of a refresh goes
 * through `RefreshExchange.fetch`, which sees how the token request itself ended — its body
 * included: a successful token answer is read there (token-answer.ts), not left to the SDK.
 */
import { OAuthError } from "../mcp-client/oauth";
import { AppError } from "../lib/errors";
import { retryAfterMs } from "../lib/provider-errors";
import { type OAuthFetch, OAuthUrlRefused } from "./oauth-fetch";
import { MAX_TOKEN_ANSWER_BYTES, readTokenAnswer, TOO_LONG } from "./token-answer";

/** OAuth error codes that say "not now" rather than "never" (`too_many_requests` is the SDK's name for a 429's). */
const TRANSIENT_OAUTH_ERRORS = new Set(["temporarily_unavailable", "server_error", "too_many_requests"]);
/** Longest error code read from an answer's body: longer is not an OAuth error code. */
const MAX_ERROR_CODE = 64;

export type RefreshFailure =
  | { kind: "refused"; reason: string }
  /** `reason` completes "its authorization server …"; `retryAfterS` as the server asked (whole seconds). */
  | { kind: "transient"; reason: string; retryAfterS: number | undefined };

/** How one request of a refresh ended. */
export type ExchangeEnd =
  | { kind: "threw"; error: unknown }
  | { kind: "answered"; status: number; oauthError: string | undefined; retryAfterS: number | undefined }
  /** The headers of a successful token answer came; its body did not arrive whole. */
  | { kind: "broke_off"; status: number; error: unknown }
  /** A successful token answer longer than MAX_TOKEN_ANSWER_BYTES. */
  | { kind: "too_long"; status: number };

/** Thrown to the SDK in place of a token answer too long to read. */
export class TokenAnswerTooLong extends Error {
  override readonly name = "TokenAnswerTooLong";
}

function isRefreshRequest(init: RequestInit | undefined): boolean {
  return init?.body instanceof URLSearchParams && init.body.get("grant_type") === "refresh_token";
}

async function oauthErrorOf(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.clone().json();
    const code = typeof body === "object" && body !== null && "error" in body ? body.error : undefined;
    return typeof code === "string" && /^[\x21-\x7e]+$/.test(code) && code.length <= MAX_ERROR_CODE ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The requests of one refresh, within one budget (every request shares it, so the refresh ends
 * within its gate lease), and how the refresh request — else the last request that failed — ended.
 */
export class RefreshExchange {
  private readonly budget: AbortSignal;
  private refreshEnd: ExchangeEnd | undefined;
  private lastFailure: ExchangeEnd | undefined;
  readonly fetch: OAuthFetch;

  constructor(
    fetchFn: OAuthFetch,
    private readonly budgetMs: number,
  ) {
    this.budget = AbortSignal.timeout(budgetMs);
    this.fetch = async (input, init) => {
      const signal = init?.signal ? AbortSignal.any([init.signal, this.budget]) : this.budget;
      const refresh = isRefreshRequest(init);
      let end: ExchangeEnd;
      let response: Response;
      try {
        response = await fetchFn(input, { ...init, signal });
      } catch (error) {
        this.record(refresh, { kind: "threw", error });
        throw error;
      }
      if (response.ok && refresh) return this.tokenAnswer(response);
      if (response.ok) end = { kind: "answered", status: response.status, oauthError: undefined, retryAfterS: undefined };
      else {
        const wait = retryAfterMs(response.headers);
        end = {
          kind: "answered",
          status: response.status,
          oauthError: await oauthErrorOf(response),
          retryAfterS: wait === undefined ? undefined : Math.ceil(wait / 1000),
        };
      }
      this.record(refresh, end);
      return response;
    };
  }

  /** A successful answer to the refresh request, its body read whole here so a break in it is seen. */
  private async tokenAnswer(response: Response): Promise<Response> {
    let whole: Response | typeof TOO_LONG;
    try {
      whole = await readTokenAnswer(response);
    } catch (error) {
      this.record(true, { kind: "broke_off", status: response.status, error });
      throw error;
    }
    if (whole === TOO_LONG) {
      this.record(true, { kind: "too_long", status: response.status });
      throw new TokenAnswerTooLong(`The token answer is longer than ${MAX_TOKEN_ANSWER_BYTES} bytes`);
    }
    this.record(true, { kind: "answered", status: response.status, oauthError: undefined, retryAfterS: undefined });
    return whole;
  }

  private record(refresh: boolean, end: ExchangeEnd): void {
    if (refresh && this.refreshEnd === undefined) this.refreshEnd = end;
    if (end.kind !== "answered" || end.status >= 400) this.lastFailure = end;
  }

  /** Why the refresh failed, given what `auth()` threw (undefined when it returned without refreshing). */
  failure(thrown: unknown): RefreshFailure {
    return classifyRefreshFailure(this.refreshEnd ?? this.lastFailure, thrown, this.budget.aborted ? this.budgetMs : undefined);
  }
}

/**
 * `decisive`: how the refresh request ended (or, when none was sent, the last request that failed);
 * `budgetRanOutMs`: the refresh's budget, when it ran out. Anything not known to be transient is a
 * refusal, as every failed refresh was before.
 */
export function classifyRefreshFailure(decisive: ExchangeEnd | undefined, thrown: unknown, budgetRanOutMs?: number): RefreshFailure {
  if (budgetRanOutMs !== undefined)
    return { kind: "transient", reason: `did not answer within ${Math.ceil(budgetRanOutMs / 1000)} s`, retryAfterS: undefined };
  if (decisive?.kind === "threw") {
    // Our own URL rules refused the endpoint: calling again cannot help.
    if (decisive.error instanceof OAuthUrlRefused) return { kind: "refused", reason: decisive.error.message };
    const timedOut = decisive.error instanceof Error && (decisive.error.name === "TimeoutError" || decisive.error.name === "AbortError");
    return { kind: "transient", reason: timedOut ? "did not answer in time" : "could not be reached", retryAfterS: undefined };
  }
  // The server may well have issued new tokens; the refresh token sent is tried again (if it was
  // rotated and is spent now, that try is refused — no worse than counting this a refusal).
  if (decisive?.kind === "broke_off") return { kind: "transient", reason: "broke off its answer", retryAfterS: undefined };
  // Not a token answer this client can use, and the same would come back on the next try.
  if (decisive?.kind === "too_long")
    return { kind: "refused", reason: `answered ${decisive.status} with a body over ${MAX_TOKEN_ANSWER_BYTES / 1024} KiB` };
  if (decisive?.kind === "answered" && decisive.status >= 400) {
    const { status, oauthError, retryAfterS } = decisive;
    if (status >= 500 || status === 429)
      return { kind: "transient", reason: `answered ${status}${oauthError ? ` ${oauthError}` : ""}`, retryAfterS };
    if (oauthError !== undefined && TRANSIENT_OAUTH_ERRORS.has(oauthError))
      return { kind: "transient", reason: `answered ${status} ${oauthError}`, retryAfterS };
    return { kind: "refused", reason: oauthError ? `${oauthError} (${status})` : `answered ${status}` };
  }
  if (thrown instanceof OAuthError) {
    if (TRANSIENT_OAUTH_ERRORS.has(thrown.code)) return { kind: "transient", reason: `answered ${thrown.code}`, retryAfterS: undefined };
    return { kind: "refused", reason: thrown.code };
  }
  return { kind: "refused", reason: "the authorization server did not refresh the token" };
}

export type TransientFailure = Extract<RefreshFailure, { kind: "transient" }>;

/** The row's `last_error` after a transient failure: readable in the connection's status, and read back by callers that waited. */
const DEFERRED_PREFIX = "refresh deferred: its authorization server ";
const DEFERRED_NOTE = /^refresh deferred: its authorization server (.+?)(?: \(retry after (\d+) s\))?$/;

export function deferralNote(failure: TransientFailure): string {
  return `${DEFERRED_PREFIX}${failure.reason}${failure.retryAfterS === undefined ? "" : ` (retry after ${failure.retryAfterS} s)`}`.slice(
    0,
    300,
  );
}

/** The transient failure a `last_error` records, if it records one. */
export function readDeferral(lastError: string | null): TransientFailure | undefined {
  const match = lastError === null ? null : DEFERRED_NOTE.exec(lastError);
  if (!match) return undefined;
  return { kind: "transient", reason: match[1]!, retryAfterS: match[2] === undefined ? undefined : Number(match[2]) };
}

/**
 * The longest Retry-After that is waited out. A server's pause is honoured, but one mistaken
 * header (a day) must not keep a source unusable after its server is back: past this a call tries
 * again, which costs one request per this long while the server still answers 429.
 */
export const MAX_HONOURED_RETRY_AFTER_S = 300;

/** When a refresh may be tried again after `failure` at `at` (ISO, the row's `refresh_retry_at`); null when it asked for no pause. */
export function refreshRetryAt(failure: TransientFailure, at: number): string | null {
  if (failure.retryAfterS === undefined) return null;
  return new Date(at + Math.min(failure.retryAfterS, MAX_HONOURED_RETRY_AFTER_S) * 1000).toISOString();
}

/** Said of the server when the note that named its failure was since replaced (a failed connect's, say). */
const PAUSE_ASKED = "asked for a pause before the next refresh";

/**
 * The transient failure a row is still waiting out: its `refresh_retry_at` is after `now`.
 * `retryAfterS` is then what is left of the wait, rounded up to whole seconds; the reason is the
 * row's note when it still records the failure.
 */
export function pendingDeferral(
  row: { refreshRetryAt: string | null; lastError: string | null },
  now: number,
): TransientFailure | undefined {
  if (row.refreshRetryAt === null) return undefined;
  const leftMs = Date.parse(row.refreshRetryAt) - now;
  // NaN (an unreadable time) waits for nothing.
  if (!(leftMs > 0)) return undefined;
  return { kind: "transient", reason: readDeferral(row.lastError)?.reason ?? PAUSE_ASKED, retryAfterS: Math.ceil(leftMs / 1000) };
}

/** What a call answers when its token could not be renewed for now: retryable, the connection kept. */
export function deferredRefreshError(sourceId: number, authorizationServer: string | null, failure: TransientFailure): AppError {
  const server = authorizationServer === null ? "its authorization server" : `its authorization server ${authorizationServer}`;
  const wait = failure.retryAfterS === undefined ? "" : ` (retry after ${failure.retryAfterS} s)`;
  return new AppError(
    "unavailable",
    `Source ${sourceId}: the upstream token could not be renewed — ${server} ${failure.reason}${wait}. The connection is kept; call again shortly`,
    {
      ...(failure.retryAfterS === undefined ? {} : { details: { retry_after_ms: failure.retryAfterS * 1000 } }),
    },
  );
}
