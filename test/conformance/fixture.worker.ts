/**
 * Worker entry for the conformance fixture (test/conformance/wrangler.toml, run by
 * `npm run conformance`). Never deployed: it exists so the suite can exercise every scenario
 * through the production app — same middleware, same auth, same hosting — at /mcp/conformance.
 */
import { createApp } from "../../workers/app";
import { builtEntry } from "../../workers/mcp-servers";
import { conformanceServer } from "./fixture.server";

const app = createApp([builtEntry(conformanceServer)]);

export default { fetch: app.fetch } satisfies ExportedHandler<Env>;
