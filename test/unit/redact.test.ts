/** The pure redaction (`core/redact.ts`) and the worker's registry of secrets (`worker/secrets.ts`). */
import { describe, expect, it } from 'vitest';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { defineAgent } from '../../src/agents/define';
import { AgentRegistry } from '../../src/agents/registry';
import { REDACTED, Redactor, base64Of, secretForms } from '../../src/core/messages/redact';
import { Keyring } from '../../src/integrations/encryption/keyring';
import { mcpServer } from '../../src/integrations/mcp/server';
import { AnthropicProvider, OpenAIProvider, PLACEHOLDER_API_KEY } from '../../src/integrations/providers';
import { redactError, withRedaction } from '../../src/activities/redaction';
import type { AgentActivities } from '../../src/core/run/contract';
import { environmentSecrets, urlPassword, WorkerRedaction, workerSecrets } from '../../src/worker/secrets';

const KEY = 'kx7-Very/Secret+Value=9';

describe('Redactor', () => {
  it('replaces a known secret in every form it travels in', () => {
    const r = new Redactor([KEY]);
    for (const form of [KEY, encodeURIComponent(KEY), Buffer.from(KEY).toString('base64'), JSON.stringify(KEY).slice(1, -1)]) {
      expect(r.text(`before ${form} after`)).toBe(`before ${REDACTED} after`);
    }
    expect(base64Of('user:pässword')).toBe(Buffer.from('user:pässword').toString('base64'));
    expect(secretForms('abcdefgh')).toContain(Buffer.from('abcdefgh').toString('base64'));
  });

  it('ignores blank and short values (they would match ordinary words) and leaves other text alone', () => {
    const r = new Redactor(['', 'no-key', 'short']);
    expect(r.empty).toBe(true);
    expect(r.text('no-key short text')).toBe('no-key short text');
  });

  it('replaces the longest secret first, so one containing another goes whole', () => {
    const r = new Redactor(['abcdefgh', 'abcdefgh-ijklmnop']);
    expect(r.text('x abcdefgh-ijklmnop y')).toBe(`x ${REDACTED} y`);
  });

  it('with shapes: sk- keys, Bearer/Basic tokens, credential pairs, URL passwords, AWS key ids; names kept', () => {
    const r = new Redactor();
    const cases: [string, string][] = [
      ['Incorrect API key provided: sk-proj-abcDEF123456789', `Incorrect API key provided: ${REDACTED}`],
      [`key ${['sk', 'ant', 'api03', 'xyzXYZ_0123456789', 'abc'].join('-')} rejected`, `key ${REDACTED} rejected`],
      ['Authorization: Bearer eyJhbGciOi.J9.xyz123', `Authorization: Bearer ${REDACTED}`],
      ['authorization: Basic dXNlcjpwYXNzd29yZA==', `authorization: Basic ${REDACTED}`],
      ['x-api-key: abc123def456', `x-api-key: ${REDACTED}`],
      ['GET /v1?api_key=abc123def456&x=1', `GET /v1?api_key=${REDACTED}&x=1`],
      ['{"password": "hunter2hunter2", "user": "bob"}', `{"password": "${REDACTED}", "user": "bob"}`],
      ['{\\"client_secret\\":\\"s3cr3t-value\\"}', `{\\"client_secret\\":\\"${REDACTED}\\"}`],
      ['connect postgres://agent:p%40ss-word@db:5432/runs failed', `connect postgres://agent:${REDACTED}@db:5432/runs failed`],
      ['access key AKIAABCDEFGHIJKLMNOP denied', `access key ${REDACTED} denied`],
    ];
    for (const [input, expected] of cases) expect(r.text(input, true)).toBe(expected);
    // Without shapes (ordinary content), only known values go.
    expect(r.text(cases[0]![0])).toBe(cases[0]![0]);
  });

  it('redacts values deeply, keeping what did not change identical', () => {
    const r = new Redactor([KEY]);
    const untouched = { a: ['x', { b: 1 }], c: null };
    expect(r.value(untouched)).toBe(untouched);
    const value = { list: [`k=${KEY}`, 2], nested: { [KEY]: true, same: untouched } };
    const out = r.value(value);
    expect(out).toEqual({ list: [`k=${REDACTED}`, 2], nested: { [REDACTED]: true, same: untouched } });
    expect(out.nested.same).toBe(untouched);
    expect(value.list[0]).toBe(`k=${KEY}`); // the input is not changed
  });
});

describe('redactError', () => {
  it('redacts an ApplicationFailure in place: message, stack, details and the cause chain; class and fields kept', () => {
    const cause = new Error(`upstream said ${KEY}`);
    const failure = ApplicationFailure.create({
      message: `401: ${KEY}`,
      type: 'authentication_error',
      nonRetryable: true,
      details: [{ retryable: false, body: `key ${KEY}` }],
      cause,
    });
    const out = redactError(failure, new Redactor([KEY])) as ApplicationFailure;
    expect(out).toBe(failure);
    expect(out).toBeInstanceOf(ApplicationFailure);
    expect(out.message).toBe(`401: ${REDACTED}`);
    expect(out.stack).not.toContain(KEY);
    expect(out.type).toBe('authentication_error');
    expect(out.nonRetryable).toBe(true);
    expect(out.details).toEqual([{ retryable: false, body: `key ${REDACTED}` }]);
    expect((out.cause as Error).message).toBe(`upstream said ${REDACTED}`);
    expect(JSON.stringify(out)).not.toContain(KEY);
  });

  it('keeps a CancelledFailure one; redacts thrown strings and objects with shapes; survives cycles', () => {
    const cancelled = new CancelledFailure(`cancelled while ${KEY}`);
    expect(redactError(cancelled, new Redactor([KEY]))).toBeInstanceOf(CancelledFailure);
    expect(cancelled.message).toBe(`cancelled while ${REDACTED}`);
    expect(redactError('Bearer abcdefgh12345', new Redactor())).toBe(`Bearer ${REDACTED}`);
    const a = new Error(KEY) as Error & { other?: unknown };
    a.other = a;
    a.cause = a;
    expect((redactError(a, new Redactor([KEY])) as Error).message).toBe(REDACTED);
  });
});

describe('withRedaction', () => {
  it('redacts what every activity returns and throws', async () => {
    const activities = {
      describeAgent: () => Promise.resolve({ text: `ok ${KEY}` }),
      callModel: () => Promise.reject(ApplicationFailure.create({ message: `no: ${KEY}` })),
    } as unknown as AgentActivities;
    const wrapped = withRedaction(activities, () => new Redactor([KEY])) as unknown as Record<string, (i: unknown) => Promise<unknown>>;
    await expect(wrapped.describeAgent!({})).resolves.toEqual({ text: `ok ${REDACTED}` });
    await expect(wrapped.callModel!({})).rejects.toThrow(`no: ${REDACTED}`);
  });
});

describe("a worker's secrets", () => {
  it('credential-named environment variables, DURABLE_AGENT_KEYS parts, passwords in URL values; not other variables', () => {
    const env = {
      OPENAI_API_KEY: 'sk-env-openai-1234',
      GITHUB_TOKEN: 'ghp_tokenvalue123',
      AWS_SECRET_ACCESS_KEY: 'aws/secret+value',
      PGPASSWORD: 'pg-password-1',
      DURABLE_AGENT_KEYS: 'k2:AAAABBBBCCCCDDDD,k1:EEEEFFFFGGGGHHHH',
      DATABASE_URL: 'postgres://agent:url-pass-123@db/runs',
      HOME: '/home/someone',
      PATH: '/usr/bin:/bin',
      PWD: '/home/someone/project',
      SSH_AUTH_SOCK: '/tmp/ssh-agent.sock',
    };
    const found = environmentSecrets(env);
    for (const v of [
      'sk-env-openai-1234',
      'ghp_tokenvalue123',
      'aws/secret+value',
      'pg-password-1',
      'AAAABBBBCCCCDDDD',
      'EEEEFFFFGGGGHHHH',
      'url-pass-123',
    ])
      expect(found).toContain(v);
    expect(found).not.toContain('/home/someone');
    expect(found).not.toContain('/usr/bin:/bin');
    expect(found).not.toContain('/home/someone/project');
    expect(found).not.toContain('/tmp/ssh-agent.sock');
    expect(urlPassword('redis://:p%40ss@host:6379')).toBe('p@ss');
    expect(urlPassword('s3://bucket/prefix')).toBeUndefined();
  });

  it('providers’ keys (not the placeholder), MCP headers and env, the store password, keyring material, extra values', () => {
    const fs = mcpServer({ name: 'fs', command: 'node', env: { FS_TOKEN: 'mcp-env-value-1' } });
    const web = mcpServer({ name: 'web', url: 'http://127.0.0.1:1/mcp', headers: { Authorization: 'Bearer mcp-bearer-value' } });
    const registry = new AgentRegistry([defineAgent({ name: 'a', model: { provider: 'x', model: 'y' }, mcp: [fs, web] })]);
    const keyring = Keyring.parse(`k1:${Keyring.generateKey()}`);
    const secrets = workerSecrets({
      env: {},
      providers: [new AnthropicProvider({ apiKey: 'anthropic-key-1' }), new OpenAIProvider({ baseURL: 'http://127.0.0.1:1/v1' })],
      registry,
      storeSetting: 'postgres://agent:store-pass-1@db/runs',
      keyring,
      extra: ['extra-secret-1'],
    });
    for (const v of [
      'anthropic-key-1',
      'mcp-env-value-1',
      'Bearer mcp-bearer-value',
      'mcp-bearer-value',
      'store-pass-1',
      keyring.primaryKey.toString('base64'),
      'extra-secret-1',
    ])
      expect(secrets).toContain(v);
    expect(secrets).not.toContain(PLACEHOLDER_API_KEY);
    // The store URL's user:password too, so its Basic-auth form (base64 of user:password) goes as well.
    const basic = Buffer.from('agent:store-pass-1').toString('base64');
    expect(new Redactor(secrets).text(`Authorization: Basic ${basic}`)).toBe(`Authorization: Basic ${REDACTED}`);
  });

  it('WorkerRedaction rebuilds its redactor only when what providers hold changes', () => {
    const held: string[] = [];
    const provider = { generate: () => Promise.reject(new Error('unused')), secrets: () => held };
    const w = new WorkerRedaction({ env: {}, providers: [provider], registry: new AgentRegistry([]), extra: ['first-secret-1'] });
    const first = w.current();
    expect(w.current()).toBe(first);
    held.push('second-secret-2');
    const second = w.current();
    expect(second).not.toBe(first);
    expect(second.text('first-secret-1 second-secret-2')).toBe(`${REDACTED} ${REDACTED}`);
  });
});
