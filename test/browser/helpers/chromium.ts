/**
 * Which Chromium the browser tests drive: Debian's `/usr/bin/chromium` when it is installed and
 * executable, otherwise the headless Chromium that ships inside the `@sparticuz/chromium` npm
 * package. That package's tarball carries the browser (brotli-compressed); first use decompresses
 * it into the system temp directory, so `npm install` alone is enough — nothing is downloaded and
 * nothing needs root. Its binary needs libc, libgcc and NSS/expat; the package ships the latter as
 * `al2023.tar.br`, which is unpacked beside it and put on LD_LIBRARY_PATH of the browser only.
 */
import { accessSync, constants, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Chromium, { inflate } from "@sparticuz/chromium";
import { ROOT } from "../../../bin/lib/wrangler";

export const SYSTEM_CHROMIUM = "/usr/bin/chromium";
const PACKAGED_BIN = join(ROOT, "node_modules", "@sparticuz", "chromium", "bin");

export interface ChromiumChoice {
  /** Where it came from, for the test log and docs/testing.md. */
  source: "system" | "npm package @sparticuz/chromium";
  executablePath: string;
  /** Variables the browser process needs on top of the test process's own. */
  env: Record<string, string>;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * Resolves the browser, decompressing the packaged one on first use. Call it once per run (the
 * node project's global set-up does): two files decompressing at the same time would race.
 */
export async function resolveChromium(): Promise<ChromiumChoice> {
  if (isExecutableFile(SYSTEM_CHROMIUM)) return { source: "system", executablePath: SYSTEM_CHROMIUM, env: {} };
  const executablePath = await Chromium.executablePath(PACKAGED_BIN);
  const libraries = await inflate(join(PACKAGED_BIN, "al2023.tar.br"));
  return {
    source: "npm package @sparticuz/chromium",
    executablePath,
    env: { LD_LIBRARY_PATH: join(libraries, "lib"), FONTCONFIG_PATH: join(tmpdir(), "fonts") },
  };
}
