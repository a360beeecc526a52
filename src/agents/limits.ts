/**
 * Size limits that keep every tool result recorded in workflow history well under Temporal's payload
 * limit (2 MB by default: a larger activity result is rejected, and the call would fail after the tool
 * already ran).
 */

/**
 * The largest tool output returned inline, whatever an agent asks for: larger outputs are stored in the
 * blob store and referenced. `defineAgent` refuses a `toolResultInlineBytes` above it, and the tool
 * activity clamps to it (an agent spec recorded by older code may carry a larger limit).
 */
export const MAX_TOOL_RESULT_INLINE_BYTES = 256 * 1024;

/**
 * The most a `runTool` activity returns (its JSON form): the inline limit plus room for a preview and
 * the error text. A result over it is replaced by an error result, never returned.
 */
export const MAX_TOOL_ACTIVITY_RESULT_BYTES = MAX_TOOL_RESULT_INLINE_BYTES + 64 * 1024;
