/** Wait `ms`, heartbeating every `beatMs`, rejecting with the signal's reason if it aborts. */
export function abortableSleep(ms: number, signal: AbortSignal, heartbeat?: () => void, beatMs = 1000): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortReason(signal));
    const done = setTimeout(finish, ms);
    const beat = heartbeat ? setInterval(heartbeat, beatMs) : undefined;
    function cleanup() {
      clearTimeout(done);
      if (beat) clearInterval(beat);
      signal.removeEventListener('abort', onAbort);
    }
    function finish() {
      cleanup();
      resolve();
    }
    function onAbort() {
      cleanup();
      reject(abortReason(signal));
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** What to throw for an aborted signal: its reason, else `fallback`, else an AbortError. */
export function abortReason(signal: AbortSignal, fallback?: unknown): unknown {
  return signal.reason ?? fallback ?? new DOMException('aborted', 'AbortError');
}
