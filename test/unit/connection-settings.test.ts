/** Connection settings: Temporal's environment configuration, explicit options over it. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveConnectionSettings } from '../../src/client/connection-settings';
import { DurableAgentError } from '../../src/core/run/errors';

const dir = mkdtempSync(join(tmpdir(), 'durable-agent-envconfig-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const configFile = join(dir, 'temporal.toml');
writeFileSync(
  configFile,
  [
    '[profile.default]',
    'address = "file-default:7233"',
    'namespace = "from-file"',
    '',
    '[profile.prod]',
    'address = "prod.tmprl.cloud:7233"',
    'namespace = "prod-ns"',
    'api_key = "test-key-not-real"',
    '',
  ].join('\n'),
);
/** An environment with no Temporal variables and no config file at the default path. */
const bare = { HOME: dir, XDG_CONFIG_HOME: dir };

describe('resolveConnectionSettings', () => {
  it('defaults to localhost:7233 and the default namespace', () => {
    expect(resolveConnectionSettings({}, bare)).toEqual({ address: 'localhost:7233', namespace: 'default' });
  });

  it('reads TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY (which turns TLS on)', () => {
    const env = { ...bare, TEMPORAL_ADDRESS: 'env-host:7233', TEMPORAL_NAMESPACE: 'env-ns', TEMPORAL_API_KEY: 'k' };
    expect(resolveConnectionSettings({}, env)).toEqual({ address: 'env-host:7233', namespace: 'env-ns', apiKey: 'k', tls: true });
  });

  it('explicit options win over the environment', () => {
    const env = { ...bare, TEMPORAL_ADDRESS: 'env-host:7233', TEMPORAL_NAMESPACE: 'env-ns', TEMPORAL_TLS: 'true' };
    expect(resolveConnectionSettings({ address: 'mine:1234', namespace: 'mine', tls: false }, env)).toEqual({
      address: 'mine:1234',
      namespace: 'mine',
      tls: false,
    });
  });

  it('reads profiles from the config file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE, or the options)', () => {
    expect(resolveConnectionSettings({}, { ...bare, TEMPORAL_CONFIG_FILE: configFile })).toEqual({
      address: 'file-default:7233',
      namespace: 'from-file',
    });
    expect(resolveConnectionSettings({}, { ...bare, TEMPORAL_CONFIG_FILE: configFile, TEMPORAL_PROFILE: 'prod' })).toMatchObject({
      address: 'prod.tmprl.cloud:7233',
      namespace: 'prod-ns',
      apiKey: 'test-key-not-real',
      tls: true,
    });
    expect(resolveConnectionSettings({ configFile, profile: 'prod', namespace: 'other' }, bare)).toMatchObject({
      address: 'prod.tmprl.cloud:7233',
      namespace: 'other',
    });
    // environment variables override the profile, as in every Temporal SDK
    expect(resolveConnectionSettings({ configFile }, { ...bare, TEMPORAL_ADDRESS: 'env-host:7233' })).toMatchObject({
      address: 'env-host:7233',
      namespace: 'from-file',
    });
  });

  it('envConfig: false ignores the environment', () => {
    expect(resolveConnectionSettings({ envConfig: false }, { ...bare, TEMPORAL_ADDRESS: 'env-host:7233' })).toEqual({
      address: 'localhost:7233',
      namespace: 'default',
    });
  });

  it('an unknown profile is a clear error', () => {
    let caught: unknown;
    try {
      resolveConnectionSettings({ configFile, profile: 'staging' }, bare);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(DurableAgentError);
    expect(caught).toMatchObject({ code: 'invalid_input' });
    expect((caught as Error).message).toMatch(/Profile 'staging' not found.*TEMPORAL_PROFILE/);
  });
});
