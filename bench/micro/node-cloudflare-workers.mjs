/** What bench/micro/cloudflare-modules.mjs serves for `cloudflare:workers` in Node: the base classes, no tracer, no env. */
export class WorkerEntrypoint {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
}
export class DurableObject {
  constructor(ctx, env) {
    this.ctx = ctx;
    this.env = env;
  }
}
export const tracing = undefined;
export const env = {};
