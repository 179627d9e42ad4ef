/**
 * Global set-up of the `node` project: chooses the browser once for every browser test file
 * (test/browser/helpers/chromium.ts) and hands the choice to them through vitest's provide/inject.
 */
import type { TestProject } from "vitest/node";
import { type ChromiumChoice, resolveChromium } from "./helpers/chromium";

declare module "vitest" {
  export interface ProvidedContext {
    chromium: ChromiumChoice;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const choice = await resolveChromium();
  console.error(`browser tests: Chromium from ${choice.source} (${choice.executablePath})`);
  project.provide("chromium", choice);
}
