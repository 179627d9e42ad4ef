/**
 * How the notes issuer's token endpoint fails a client's refreshes while a test asks it to
 * (token-faults.ts serves it; test/helpers/notes-upstream.ts sets it from workerd): an HTTP answer
 * (`retryAfter` is the Retry-After header's value), `hang` — the request is held, unanswered — or
 * `breakOff` — the headers of a 200 token answer and the start of its body, then the connection
 * closes short of the Content-Length it declared.
 */
export type TokenFault = { status: number; body?: string; contentType?: string; retryAfter?: string } | { hang: true } | { breakOff: true };
