/**
 * The bridge's log: one line per event on stderr, `key=value` pairs after the event name.
 * Callers pass names, ids and counts only — never environment values or message bodies.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;
export type Logger = (event: string, fields?: LogFields) => void;

function quote(value: string): string {
  return /^[\w.:/@+-]*$/.test(value) && value !== "" ? value : JSON.stringify(value);
}

export function stderrLogger(write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  return (event, fields = {}) => {
    const parts = [new Date().toISOString(), "bridge", event];
    for (const [key, value] of Object.entries(fields)) {
      if (value === undefined) continue;
      parts.push(`${key}=${quote(String(value))}`);
    }
    write(`${parts.join(" ")}\n`);
  };
}
