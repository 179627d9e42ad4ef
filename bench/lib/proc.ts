/**
 * Process CPU time from Linux /proc: how the bench measures the CPU a server process spends per
 * request without adding any timing code to the product. Elsewhere these return undefined/[] and
 * the CPU phase is skipped.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

function readStat(pid: number): string[] | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // The command name (field 2) is in parentheses and may contain spaces: split after its last ")".
    const end = text.lastIndexOf(")");
    return [String(pid), text.slice(text.indexOf("(") + 1, end), ...text.slice(end + 2).split(" ")];
  } catch {
    return undefined;
  }
}

/** Direct children of `parent` (any command). */
export function childPids(parent: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const fields = readStat(Number(entry));
    if (fields && Number(fields[3]) === parent) children.push(Number(entry));
  }
  return children;
}

let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** User + system CPU milliseconds the process (all its threads) has used so far. */
export function cpuTimeMs(pid: number): number | undefined {
  const fields = readStat(pid);
  if (!fields) return undefined;
  const ticks = Number(fields[13]) + Number(fields[14]);
  return Number.isFinite(ticks) ? (ticks * 1000) / clockTicks() : undefined;
}

/** Busy (non-idle, non-iowait) CPU milliseconds of the whole machine, all cores, from /proc/stat. */
export function machineBusyMs(): number | undefined {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
    const [user, nice, system, _idle, _iowait, irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    const busy = [user, nice, system, irq, softirq, steal].reduce<number>((sum, value) => sum + (value ?? 0), 0);
    return (busy * 1000) / clockTicks();
  } catch {
    return undefined;
  }
}
