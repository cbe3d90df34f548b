import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('loadConfig', () => {
  it('needs nothing on a fresh clone', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      CMS_DATA_DIR: './.trellis',
      HOST: '127.0.0.1',
      PORT: 4000,
      CMS_ENGINE: 'embedded',
      MAX_QUERY_TIMEOUT_MS: 120000,
    });
  });

  it('rejects a wrong value with one line naming the variable', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    try {
      loadConfig({ PORT: '99999', CMS_ENGINE: 'mysql' });
    } catch (error) {
      const message = (error as Error).message;
      expect(message).not.toContain('\n');
      expect(message).toContain('PORT');
      expect(message).toContain('CMS_ENGINE');
    }
  });

  it('requires NEO4J_URI for the neo4j engine', () => {
    expect(() => loadConfig({ CMS_ENGINE: 'neo4j' })).toThrow(/NEO4J_URI/);
    expect(loadConfig({ CMS_ENGINE: 'neo4j', NEO4J_URI: 'bolt://127.0.0.1:7687' }).CMS_ENGINE).toBe('neo4j');
  });
});

describe('CMS_DEPLOY_LEASE_MS', () => {
  it('defaults to 60 s and takes a shorter or longer lease within bounds', () => {
    expect(loadConfig({}).CMS_DEPLOY_LEASE_MS).toBe(60_000);
    expect(loadConfig({ CMS_DEPLOY_LEASE_MS: '5000' }).CMS_DEPLOY_LEASE_MS).toBe(5000);
    expect(() => loadConfig({ CMS_DEPLOY_LEASE_MS: '999' })).toThrow(/CMS_DEPLOY_LEASE_MS/);
    expect(() => loadConfig({ CMS_DEPLOY_LEASE_MS: 'soon' })).toThrow(/CMS_DEPLOY_LEASE_MS/);
  });
});
