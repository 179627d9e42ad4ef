/**
 * Why a refresh of an upstream token failed, told apart by what the authorization server did:
 * **refused** (it answered that the grant is dead — the tokens go, the owner connects again) or
 * **transient** (it could not be reached, ran out of time, or answered 5xx / 429 /
 * `temporarily_unavailable` — the tokens stay, the next call tries again).
 *
 * The SDK's `auth()` cannot tell us: after a refresh that failed with a network error, a body that
 * is not an OAuth error, or `server_error`, it falls back to starting a new authorization, and
 * after `invalid_grant` / `invalid_client` it drops the tokens and starts one too — either way
 * what reaches us is the fallback's failure, not the cause. So every request of a refresh goes
 * through `RefreshExchange.fetch`, which sees how the token request itself ended.
 */
import { OAuthError } from "../mcp-client/oauth";
import { AppError } from "../lib/errors";
import { retryAfterMs } from "../lib/provider-errors";
import { type OAuthFetch, OAuthUrlRefused } from "./oauth-fetch";

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
  | { kind: "answered"; status: number; oauthError: string | undefined; retryAfterS: number | undefined };

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
      if (response.ok) end = { kind: "answered", status: response.status, oauthError: undefined, retryAfterS: undefined };
      else {
        const wait = retryAfterMs(response.headers);
        end = { kind: "answered", status: response.status, oauthError: await oauthErrorOf(response), retryAfterS: wait === undefined ? undefined : Math.ceil(wait / 1000) };
      }
      this.record(refresh, end);
      return response;
    };
  }

  private record(refresh: boolean, end: ExchangeEnd): void {
    if (refresh && this.refreshEnd === undefined) this.refreshEnd = end;
    if (end.kind === "threw" || end.status >= 400) this.lastFailure = end;
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
  if (budgetRanOutMs !== undefined) return { kind: "transient", reason: `did not answer within ${Math.ceil(budgetRanOutMs / 1000)} s`, retryAfterS: undefined };
  if (decisive?.kind === "threw") {
    // Our own URL rules refused the endpoint: calling again cannot help.
    if (decisive.error instanceof OAuthUrlRefused) return { kind: "refused", reason: decisive.error.message };
    const timedOut = decisive.error instanceof Error && (decisive.error.name === "TimeoutError" || decisive.error.name === "AbortError");
    return { kind: "transient", reason: timedOut ? "did not answer in time" : "could not be reached", retryAfterS: undefined };
  }
  if (decisive?.kind === "answered" && decisive.status >= 400) {
    const { status, oauthError, retryAfterS } = decisive;
    if (status >= 500 || status === 429) return { kind: "transient", reason: `answered ${status}${oauthError ? ` ${oauthError}` : ""}`, retryAfterS };
    if (oauthError !== undefined && TRANSIENT_OAUTH_ERRORS.has(oauthError)) return { kind: "transient", reason: `answered ${status} ${oauthError}`, retryAfterS };
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
  return `${DEFERRED_PREFIX}${failure.reason}${failure.retryAfterS === undefined ? "" : ` (retry after ${failure.retryAfterS} s)`}`.slice(0, 300);
}

/** The transient failure a `last_error` records, if it records one. */
export function readDeferral(lastError: string | null): TransientFailure | undefined {
  const match = lastError === null ? null : DEFERRED_NOTE.exec(lastError);
  if (!match) return undefined;
  return { kind: "transient", reason: match[1]!, retryAfterS: match[2] === undefined ? undefined : Number(match[2]) };
}

/** What a call answers when its token could not be renewed for now: retryable, the connection kept. */
export function deferredRefreshError(sourceId: number, authorizationServer: string | null, failure: TransientFailure): AppError {
  const server = authorizationServer === null ? "its authorization server" : `its authorization server ${authorizationServer}`;
  const wait = failure.retryAfterS === undefined ? "" : ` (retry after ${failure.retryAfterS} s)`;
  return new AppError("unavailable", `Source ${sourceId}: the upstream token could not be renewed — ${server} ${failure.reason}${wait}. The connection is kept; call again shortly`, {
    ...(failure.retryAfterS === undefined ? {} : { details: { retry_after_ms: failure.retryAfterS * 1000 } }),
  });
}
