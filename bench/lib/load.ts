/**
 * One fixed-duration autocannon run against one (target, tool). Every response is checked with
 * the cheap success test (2xx, JSON-RPC `result`, no `isError`), and latency percentiles are
 * computed from autocannon's per-response float timings rather than its integer-millisecond
 * histogram, which is too coarse at a few milliseconds.
 */
import autocannon from "autocannon";
import { DIRECT, isSuccessBody, requestBody, requestHeaders, type Route, type Tool } from "./mcp";
import { percentile } from "./stats";

export interface LoadSample {
  /** Successful responses per second. */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  /** Socket errors and timeouts + non-2xx responses + 2xx bodies that are not a successful result. */
  errors: number;
  responses: number;
}

/** Bounds the latency buffer (~40 MB) whatever the duration and server speed. */
const MAX_LATENCY_SAMPLES = 5_000_000;
const REQUEST_TIMEOUT_SECONDS = 10;

export function runLoad(input: {
  url: URL;
  token: string;
  tool: Tool;
  connections: number;
  seconds: number;
  route?: Route;
}): Promise<LoadSample> {
  const route = input.route ?? DIRECT;
  const latencies: number[] = [];
  let ok = 0;
  let bad = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: input.url.origin,
        connections: input.connections,
        duration: input.seconds,
        timeout: REQUEST_TIMEOUT_SECONDS,
        requests: [
          {
            method: "POST",
            path: route.path,
            headers: requestHeaders(input.token, route),
            body: requestBody(input.tool, route),
            onResponse: (status, body) => {
              if (status >= 200 && status < 300 && isSuccessBody(body)) ok++;
              else bad++;
            },
          },
        ],
      },
      (error, result) => {
        if (error) {
          reject(error);
          return;
        }
        latencies.sort((a, b) => a - b);
        resolve({
          rps: ok / result.duration,
          p50_ms: percentile(latencies, 50),
          p99_ms: percentile(latencies, 99),
          errors: result.errors + bad,
          responses: ok + bad,
        });
      },
    );
    instance.on("response", (_client, _status, _bytes, responseTimeMs) => {
      if (latencies.length < MAX_LATENCY_SAMPLES) latencies.push(responseTimeMs);
    });
  });
}
