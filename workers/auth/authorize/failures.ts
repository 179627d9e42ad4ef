/**
 * How the /authorize pages fail: errors of the library shown here or sent back to the client as
 * its table says (only once the client and redirect URI are validated), ours shown here, and
 * anything unexpected logged and shown as a plain page — never a 500 with a stack trace. The routes
 * wrap their handlers with it (authorize.routes.ts#guarded).
 */
import { AuthorizationError, CimdFetchError } from "@cloudflare/workers-oauth-provider";
import { AppError, retryAfterMs } from "../../lib/errors";
import { log } from "../../lib/log";
import { errorPage } from "./pages";

export function authorizationFailure(error: unknown): Response {
  if (error instanceof AuthorizationError && error.redirectTo) return Response.redirect(error.redirectTo, 302);
  if (error instanceof AuthorizationError) return errorPage(error.description);
  if (error instanceof CimdFetchError)
    return errorPage("This app could not be verified: its client metadata document could not be fetched or is not valid.");
  if (error instanceof AppError) {
    const page = errorPage(error.message, error.status === 500 ? 400 : error.status);
    const retryAfter = retryAfterMs(error);
    if (retryAfter !== undefined) page.headers.set("Retry-After", String(Math.ceil(retryAfter / 1000)));
    return page;
  }
  log.error("authorize failed", { error: error instanceof Error ? `${error.name}: ${error.message}` : String(error) });
  return errorPage("The authorization request could not be processed.");
}
