import { Agent, buildConnector, errors } from 'undici';

/**
 * The built-in dispatcher: an undici Agent whose connect step (TCP, and TLS for https) is bounded by a plain
 * timer of `connectTimeoutMs`. undici's own connect timeout runs on a coarse shared timer (about a second of
 * slack); ours fires on time and reports `UND_ERR_CONNECT_TIMEOUT`, which the core maps to
 * `TimeoutError` with `phase: 'connect'` (docs/decisions/provider.md#client-timeouts).
 */
export function createAgent(connectTimeoutMs: number): Agent {
  const base = buildConnector({ timeout: 0 });
  return new Agent({
    connect(options, callback) {
      let settled = false;
      let socket: ReturnType<typeof base> | undefined;
      const timer = setTimeout(() => {
        if (settled) return;
        settled = true;
        (socket as unknown as { destroy?: () => void } | undefined)?.destroy?.();
        callback(new errors.ConnectTimeoutError(`connect timed out after ${connectTimeoutMs} ms`), null);
      }, connectTimeoutMs);
      socket = base(options, (...args) => {
        clearTimeout(timer);
        if (settled) {
          args[1]?.destroy();
          return;
        }
        settled = true;
        callback(...args);
      });
    },
  });
}
