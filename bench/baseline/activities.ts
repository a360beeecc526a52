/**
 * Activities of the baseline workflow: a model-like call and a tool-like call, each trivial, passing
 * data of about the size the agent's activities pass for a one-tool step (a reference to the
 * conversation plus the newest message). They run in the worker, like the agent's activities.
 */

/** A tool call as the model-like activity returns it. */
export interface BaselineToolCall {
  id: string;
  name: string;
  args: { key: string };
}

/** Input of {@link BaselineActivities.modelLike}. */
export interface ModelLikeInput {
  step: number;
  /** Steps that ask for a tool; the call after them answers. */
  toolSteps: number;
  /** Reference to the conversation so far (the agent passes a 71-character blob ref). */
  head: string | null;
  /** The newest tool result, as the agent appends it. */
  append: { callId: string; text: string } | null;
}

/** Output of {@link BaselineActivities.modelLike}: a tool call, or the final answer. */
export interface ModelLikeOutput {
  head: string;
  call?: BaselineToolCall;
  text?: string;
}

/** Input of {@link BaselineActivities.toolLike}. */
export interface ToolLikeInput {
  step: number;
  call: BaselineToolCall;
}

/** The baseline's activities. */
export interface BaselineActivities {
  modelLike(input: ModelLikeInput): Promise<ModelLikeOutput>;
  toolLike(input: ToolLikeInput): Promise<{ text: string }>;
}

/** A stand-in for a content address, as long as the agent's `sha256-<64 hex>` refs. */
function fakeRef(step: number): string {
  return `sha256-${step.toString(16).padStart(64, '0')}`;
}

/** The baseline's activity implementations. */
export const baselineActivities: BaselineActivities = {
  async modelLike(input) {
    const head = fakeRef(input.step);
    if (input.step > input.toolSteps) return { head, text: 'done' };
    return { head, call: { id: `call_${input.step}_0`, name: 'lookup', args: { key: 'k' } } };
  },
  async toolLike(input) {
    return { text: `value of ${input.call.args.key}` };
  },
};
