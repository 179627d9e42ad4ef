/**
 * What already exists on the account, asked of wrangler one resource at a time (only the resources
 * this deployment uses): a queue, the D1 database, a Worker's secret names, and the SELF_ORIGIN the
 * main Worker's current version was deployed with. "Does not exist" is an answer; any other failure
 * (not logged in, no network) stops the deployment with wrangler's own words.
 */
import * as z from "zod";
import { type Wrangler, WranglerError } from "./wrangler-cli";

function absentWhen(pattern: RegExp, ask: () => string): string | undefined {
  try {
    return ask();
  } catch (error) {
    if (error instanceof WranglerError && pattern.test(error.output)) return undefined;
    throw error;
  }
}

export function queueExists(wrangler: Wrangler, queue: string): boolean {
  return absentWhen(/does not exist/i, () => wrangler.run(["queues", "info", queue])) !== undefined;
}

export function databaseExists(wrangler: Wrangler, config: string, binding: string): boolean {
  return absentWhen(/couldn't find a D1 DB/i, () => wrangler.run(["d1", "info", binding, "--json", "-c", config])) !== undefined;
}

const secretList = z.array(z.looseObject({ name: z.string() }));

/** The Worker's secret names, or undefined when the Worker is not deployed yet. */
export function secretNames(wrangler: Wrangler, config: string): Set<string> | undefined {
  const listed = absentWhen(/Worker "[^"]*" not found/i, () => wrangler.run(["secret", "list", "--format", "json", "-c", config]));
  return listed === undefined ? undefined : new Set(secretList.parse(JSON.parse(listed)).map((secret) => secret.name));
}

const deploymentStatus = z.looseObject({ versions: z.array(z.looseObject({ version_id: z.string(), percentage: z.number() })) });
const versionView = z.looseObject({
  resources: z.looseObject({ bindings: z.array(z.looseObject({ type: z.string(), name: z.string(), text: z.string().optional() })) }),
});

/** A plain-text var of the Worker's version serving the most traffic now ("" when it has none). */
export function deployedVar(wrangler: Wrangler, config: string, name: string): string {
  const status = deploymentStatus.parse(JSON.parse(wrangler.run(["deployments", "status", "--json", "-c", config])));
  const serving = [...status.versions].sort((a, b) => b.percentage - a.percentage)[0];
  if (!serving) return "";
  const version = versionView.parse(JSON.parse(wrangler.run(["versions", "view", serving.version_id, "--json", "-c", config])));
  return version.resources.bindings.find((binding) => binding.type === "plain_text" && binding.name === name)?.text ?? "";
}

/** The workers.dev URL a `wrangler deploy` printed among its targets, if any. */
export function workersDevUrl(deployOutput: string): string | undefined {
  return /https:\/\/[a-z0-9-]+(?:\.[a-z0-9-]+)*\.workers\.dev\b/i.exec(deployOutput)?.[0];
}
