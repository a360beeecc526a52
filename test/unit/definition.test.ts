import { describe, expect, it } from 'vitest';
import { canonicalJson, definitionHashInput } from '../../src/core/run/definition';
import type { AgentSpec } from '../../src/core/run/spec';

const spec: AgentSpec = {
  name: 'a',
  models: [{ provider: 'scripted', model: 'm', maxTokens: 100 }],
  tools: [],
  limits: { maxSteps: 5, toolResultInlineBytes: 1, resultMessagesInlineBytes: 1 },
  modelRetry: { maximumAttempts: 1, initialIntervalMs: 1, backoffCoefficient: 2, maximumIntervalMs: 1 },
  modelTimeoutMs: 1,
  modelHeartbeatTimeoutMs: 1,
  promptRef: 'blob-1',
};

describe('definitionHashInput', () => {
  it('does not depend on key order, the prompt blob ref, search attributes or an earlier hash', () => {
    const reordered = { searchAttributes: true, definitionHash: 'x', ...spec } as AgentSpec;
    reordered.promptRef = 'blob-2';
    expect(definitionHashInput(reordered, { tools: [], system: 's' })).toBe(definitionHashInput(spec, { system: 's', tools: [] }));
  });

  it('changes with the prompt, a model or a limit', () => {
    const base = definitionHashInput(spec, { system: 's' });
    expect(definitionHashInput(spec, { system: 't' })).not.toBe(base);
    expect(definitionHashInput({ ...spec, models: [{ provider: 'scripted', model: 'n', maxTokens: 100 }] }, { system: 's' })).not.toBe(
      base,
    );
    expect(definitionHashInput({ ...spec, limits: { ...spec.limits, maxSteps: 6 } }, { system: 's' })).not.toBe(base);
  });

  it('sorts keys at every level and keeps array order', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }, 3], a: undefined, e: null })).toBe('{"b":[{"c":2,"d":1},3],"e":null}');
  });
});
