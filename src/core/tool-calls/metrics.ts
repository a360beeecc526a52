/**
 * Per-call metrics a tool records (`ctx.metrics.set(name, value)`) and their bounds. Pure and
 * workflow-safe.
 */

/** The value of one tool metric. */
export type ToolMetricValue = number | string | boolean;

/** The metrics of one tool call attempt, by name. */
export type ToolMetrics = Record<string, ToolMetricValue>;

/** Most metric names one attempt may set. */
export const MAX_TOOL_METRICS = 32;
/** Longest string metric value kept, in characters; longer ones are cut with an ellipsis. */
export const MAX_TOOL_METRIC_STRING_CHARS = 256;
/** What a metric name may be: 1–64 letters, digits, `_`, `.` and `-`. */
export const TOOL_METRIC_NAME = /^[a-zA-Z0-9_.-]{1,64}$/;

/**
 * The value to keep for metric `name`, given the names already set (`names`): a string longer than
 * {@link MAX_TOOL_METRIC_STRING_CHARS} is cut and ends with `…`.
 *
 * @throws TypeError for a name that does not match {@link TOOL_METRIC_NAME}, a value that is not a
 * finite number, a string or a boolean, or a new name beyond {@link MAX_TOOL_METRICS}. Setting a name
 * again replaces its value and does not count again.
 */
export function checkMetric(name: unknown, value: unknown, names: ReadonlySet<string>): ToolMetricValue {
  if (typeof name !== 'string' || !TOOL_METRIC_NAME.test(name)) {
    throw new TypeError(`ctx.metrics.set: invalid metric name ${safeJson(name)}: use 1-64 letters, digits, "_", "." or "-"`);
  }
  if (!names.has(name) && names.size >= MAX_TOOL_METRICS) {
    throw new TypeError(`ctx.metrics.set: metric "${name}" is one too many: a call attempt sets at most ${MAX_TOOL_METRICS} metrics`);
  }
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`ctx.metrics.set: metric "${name}" must be a finite number, not ${String(value)}`);
    return value;
  }
  if (typeof value === 'string') {
    if (value.length <= MAX_TOOL_METRIC_STRING_CHARS) return value;
    let cut = MAX_TOOL_METRIC_STRING_CHARS - 1;
    if ((value.charCodeAt(cut - 1) & 0xfc00) === 0xd800) cut--;
    return `${value.slice(0, cut)}…`;
  }
  throw new TypeError(
    `ctx.metrics.set: metric "${name}" must be a number, a string or a boolean, not ${value === null ? 'null' : typeof value}`,
  );
}

function safeJson(v: unknown): string {
  try {
    return (typeof v === 'string' ? JSON.stringify(v.length > 80 ? `${v.slice(0, 80)}…` : v) : undefined) ?? String(v);
  } catch {
    return typeof v;
  }
}
