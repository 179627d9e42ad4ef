/**
 * The upstream Worker of the workerd test projects: this same main Worker built again and run as an
 * auxiliary Worker on UPSTREAM_ORIGIN, as another deployment would be. The gateway under test
 * reaches it as it reaches any upstream, by a plain fetch (decision 0057): a small router Worker is
 * the test Worker's outbound network, sending requests for UPSTREAM_HOST to the upstream Worker and
 * every other request out unchanged (through the project's own outbound handler when it has one).
 *
 * What the upstream shares with the Worker under test, and what it does not:
 * - the D1 database (the same id): a test's users and API tokens exist at the upstream too, as for a
 *   person with an account on both deployments, so a source's stored token works there;
 * - its own authorization server (issuer = its origin) over its own OAUTH_KV, so the OAuth-upstream
 *   tests sign in at a separate server; the tests read that KV through the test-only
 *   UPSTREAM_OAUTH_KV binding;
 * - its own Durable Objects, its own rate limiters (other namespace ids: it counts its own callers,
 *   as any upstream does) and its own entry points; its events go to the same queue, which the
 *   Worker under test consumes.
 */
import { auxiliaryWorker, type WorkerOptions } from "./worker-bundles";
import { UPSTREAM_HOST, UPSTREAM_ORIGIN } from "./upstream-origin";

const UPSTREAM_WORKER = "mcp-edge-upstream";
const TEST_NETWORK_WORKER = "mcp-edge-test-network";
/** The upstream's OAUTH_KV namespace; the Worker under test binds it as UPSTREAM_OAUTH_KV. */
export const UPSTREAM_OAUTH_KV_ID = "upstream-oauth-kv";

type Bindings = NonNullable<WorkerOptions["bindings"]>;
type RateLimits = NonNullable<WorkerOptions["ratelimits"]>;

/** Routes the upstream's host to the UPSTREAM binding; anything else leaves as it came. */
const TEST_NETWORK_SCRIPT = `export default {
  fetch(request, env) {
    return new URL(request.url).hostname === ${JSON.stringify(UPSTREAM_HOST)} ? env.UPSTREAM.fetch(request) : fetch(request);
  },
};`;

/** The same limits under namespace ids of the upstream's own: Miniflare counts per namespace id. */
function ownNamespaces(ratelimits: RateLimits): RateLimits {
  const own = (id: string) => String(90_000 + Number(id));
  const entries = Object.entries(ratelimits).map(([name, binding]) => [name, { ...binding, namespace_id: own(binding.namespace_id) }]);
  return Object.fromEntries(entries);
}

export interface UpstreamWorkers {
  /** The upstream Worker and the router, for the project's `miniflare.workers`. */
  workers: WorkerOptions[];
  /** The Worker under test's `miniflare.outboundService`. */
  outboundService: string;
}

/**
 * `vars`: the project's test bindings (the upstream's SELF_ORIGIN is set here); `ratelimits`: the
 * project's limits when it changes them (else wrangler.toml's); `outbound`: where requests for
 * every other host go (default: out as they are).
 */
export async function upstreamWorkers(
  vars: Bindings,
  options: { ratelimits?: RateLimits; outbound?: WorkerOptions["outboundService"] } = {},
): Promise<UpstreamWorkers> {
  const upstream = await auxiliaryWorker("wrangler.toml", "workers/index.ts", UPSTREAM_WORKER, (worker) => ({
    ...worker,
    // No token cache: the tests run in the Worker under test and cannot clear the upstream's
    // (auth.service.ts#clearTokenCache), so a token revoked there is refused there at once.
    bindings: { ...worker.bindings, ...vars, SELF_ORIGIN: UPSTREAM_ORIGIN, TOKEN_CACHE_SECONDS: "0" },
    kvNamespaces: { OAUTH_KV: UPSTREAM_OAUTH_KV_ID },
    ratelimits: ownNamespaces({ ...worker.ratelimits, ...options.ratelimits }),
    // Its bindings to itself name this Worker; the chat agent's binding is left out (nothing calls
    // the upstream's /api/chat).
    serviceBindings: Object.fromEntries(
      Object.entries(worker.serviceBindings ?? {}).flatMap(([binding, target]) => {
        const toItself = typeof target === "object" && "name" in target && target.name === "mcp-edge";
        return toItself ? [[binding, { ...target, name: UPSTREAM_WORKER }]] : [];
      }),
    ),
    // The Worker under test consumes the queue the two share.
    queueConsumers: undefined,
    outboundService: TEST_NETWORK_WORKER,
  }));
  const network: WorkerOptions = {
    name: TEST_NETWORK_WORKER,
    modules: true,
    script: TEST_NETWORK_SCRIPT,
    compatibilityDate: upstream.compatibilityDate,
    serviceBindings: { UPSTREAM: UPSTREAM_WORKER },
    ...(options.outbound !== undefined ? { outboundService: options.outbound } : {}),
  };
  return { workers: [upstream, network], outboundService: TEST_NETWORK_WORKER };
}
