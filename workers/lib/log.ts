/**
 * Structured logs: one JSON line per record, which Workers Logs indexes by field.
 * Never log secrets, tokens or tool argument values.
 */
type Fields = Record<string, unknown>;

function emit(level: "debug" | "info" | "warn" | "error", message: string, fields?: Fields): void {
  const line = JSON.stringify({ level, message, ...fields });
  if (level === "error") console.error(line);
  else if (level === "warn") console.warn(line);
  else console.log(line);
}

export const log = {
  info: (message: string, fields?: Fields) => emit("info", message, fields),
  warn: (message: string, fields?: Fields) => emit("warn", message, fields),
  error: (message: string, fields?: Fields) => emit("error", message, fields),
};
