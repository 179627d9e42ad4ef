/**
 * npm run lint:deps, first step: every source file under workers/, durable-objects/ and d1/ is in
 * exactly one layer of .dependency-cruiser-layers.cjs, so the dependency rules (.dependency-cruiser.cjs)
 * see all of the code (decision 0059). Prints how many files each layer holds; fails naming every
 * file in no layer or in several.
 * Usage: tsx bin/check-layers.ts
 */
import { loadLayers, placeFiles, sourceFiles } from "./lib/layers";

const files = sourceFiles();
const { byLayer, unplaced, ambiguous } = placeFiles(files, loadLayers());
const width = Math.max(...[...byLayer.keys()].map((name) => name.length));

console.log(`${files.length} source files in ${byLayer.size} layers (.dependency-cruiser-layers.cjs):`);
for (const [layer, members] of byLayer) console.log(`  ${layer.padEnd(width)}  ${String(members.length).padStart(4)}`);
if (unplaced.length > 0) {
  console.error(`\n${unplaced.length} in no layer: give each a role suffix (.routes.ts, .service.ts, .repo.ts …) or declare its area:`);
  for (const file of unplaced) console.error(`  ${file}`);
}
if (ambiguous.length > 0) {
  console.error(`\n${ambiguous.length} in more than one layer: rename or move each so exactly one pattern matches:`);
  for (const { file, layers } of ambiguous) console.error(`  ${file} (${layers.join(", ")})`);
}
if (unplaced.length + ambiguous.length > 0) {
  console.error("\nThe layers and why: .dependency-cruiser-layers.cjs, docs/decisions/0059-a-layer-for-every-file.md");
  process.exit(1);
}
console.log(`Every one is in exactly one layer.`);
