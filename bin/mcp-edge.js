#!/usr/bin/env node
// `npx mcp-edge …`: runs bin/mcp-edge.ts through tsx (a dependency), on whatever Node ≥ 20 is first on PATH.
import { register } from "tsx/esm/api";

register();
await import("./mcp-edge.ts");
