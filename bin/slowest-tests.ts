/**
 * Prints the slowest test files of a vitest JSON report (`--reporter=json --outputFile.json=…`),
 * slowest first, with each file's wall time and test count: where the suite's time goes.
 * Usage: tsx bin/slowest-tests.ts <report.json> [how many, default 10]
 */
import { readFileSync } from "node:fs";
import { relative } from "node:path";
import { z } from "zod";
import { ROOT } from "./lib/wrangler";

const report = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      startTime: z.number(),
      endTime: z.number(),
      assertionResults: z.array(z.unknown()),
    }),
  ),
});

const [path, countArg = "10"] = process.argv.slice(2);
if (!path) {
  console.error("usage: tsx bin/slowest-tests.ts <vitest-report.json> [count]");
  process.exit(2);
}
const count = Number(countArg);
if (!Number.isInteger(count) || count < 1) {
  console.error(`count must be a whole number of at least 1, not ${JSON.stringify(countArg)}`);
  process.exit(2);
}
const parsed = report.safeParse(JSON.parse(readFileSync(path, "utf8")));
if (!parsed.success) {
  console.error(`${path} is not a vitest JSON report: ${z.prettifyError(parsed.error)}`);
  process.exit(2);
}
const files = parsed.data.testResults
  .map((file) => ({
    file: relative(ROOT, file.name),
    seconds: (file.endTime - file.startTime) / 1000,
    tests: file.assertionResults.length,
  }))
  .sort((a, b) => b.seconds - a.seconds)
  .slice(0, count);
console.log(`The ${files.length} slowest test files:`);
for (const { file, seconds, tests } of files)
  console.log(`${seconds.toFixed(1).padStart(7)} s  ${String(tests).padStart(4)} tests  ${file}`);
