// The sync agent's naming templates: api-syncagent's hash output (fixed vectors computed outside
// this code: NIST/RFC digests and `node -e` crypto), the supported subset, and compile errors.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/core/config-error.js';
import { getPath, pathProblem } from '../../packages/sync-agent/src/object-path.js';
import type { SyncTemplate, TemplateResult } from '../../packages/sync-agent/src/template.js';
import { compileTemplate, parseTemplate, renderTemplate, sha3short, shortHash } from '../../packages/sync-agent/src/template.js';

function compiled(source: string): SyncTemplate {
  const r = parseTemplate(source);
  if (r.type === 'invalid') throw new Error(`expected ${source} to compile: ${r.message}`);
  return r.template;
}

function render(source: string, object: unknown = {}, clusterName = 'ws1'): TemplateResult {
  return renderTemplate(compiled(source), { cluster: clusterName, object });
}

function compileError(source: string): string {
  const r = parseTemplate(source);
  if (r.type === 'compiled') throw new Error(`expected ${source} not to compile`);
  return r.message;
}

const orders = { metadata: { namespace: 'default', name: 'orders' }, spec: { replicas: 3, tags: ['a', 'b'], secret: 'orders-conn' } };

describe('sync template hashes', () => {
  it('should give the SHA3-256 prefix of the string (fixed vectors)', () => {
    // SHA3-256("") and SHA3-256("abc") are the FIPS 202 test vectors.
    expect(sha3short('', 64)).toBe('a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a');
    expect(sha3short('abc', 64)).toBe('3a985da74fe225b2045c172d6bd390bd855f086e3e9d525b46bfe24511431532');
    expect(sha3short('orders')).toBe('fe3e9668e34e13e2a6cd');
    expect(sha3short('orders', 8)).toBe('fe3e9668');
  });

  it('should give the first 20 hex of SHA-1 for shortHash (fixed vectors)', () => {
    // SHA-1("abc") is the FIPS 180 test vector a9993e364706816aba3e25717850c26c9cd0d89d.
    expect(shortHash('abc')).toBe('a9993e364706816aba3e');
    expect(shortHash('orders')).toBe('9658403816409e66eba2');
  });

  it('should match api-syncagent default naming vector', () => {
    // From api-syncagent's internal/sync/templating/naming_test.go ("follow default naming rules").
    const object = { metadata: { namespace: 'objnamespace', name: 'objname' } };
    expect(render('{{ .Object.metadata.namespace | sha3short }}-{{ .Object.metadata.name | sha3short }}', object, 'testcluster')).toEqual({
      type: 'rendered',
      value: '2928c2aa0e510f017f07-73d08a1ba188f1340dae',
    });
  });
});

describe('sync template rendering', () => {
  it('should render the cluster name, object fields and fixed text', () => {
    expect(render('{{ .ClusterName }}', orders)).toEqual({ type: 'rendered', value: 'ws1' });
    expect(render('db-{{ .Object.metadata.name }}.{{.Object.metadata.namespace}}', orders)).toEqual({ type: 'rendered', value: 'db-orders.default' });
    expect(render('fixed', orders)).toEqual({ type: 'rendered', value: 'fixed' });
  });

  it('should print numbers and booleans as Go does, but only hash strings', () => {
    expect(render('r{{ .Object.spec.replicas }}', orders)).toEqual({ type: 'rendered', value: 'r3' });
    expect(render('{{ .Object.spec.replicas | sha3short }}', orders)).toEqual({ type: 'invalid', message: '.Object.spec.replicas is a number, not a string to hash' });
    expect(render('{{ .Object.spec.tags }}', orders)).toEqual({ type: 'invalid', message: '.Object.spec.tags is a list, not a value to print' });
    expect(render('{{ .Object.spec }}', orders)).toEqual({ type: 'invalid', message: '.Object.spec is an object, not a value to print' });
  });

  it('should report a missing or null field by its path', () => {
    expect(render('{{ .Object.spec.connection }}', orders)).toEqual({ type: 'missing', field: '.Object.spec.connection' });
    expect(render('{{ .Object.spec.secret.name | sha3short }}', orders)).toEqual({ type: 'missing', field: '.Object.spec.secret.name' });
    expect(render('{{ .Object.spec.x }}', { spec: { x: null } })).toEqual({ type: 'missing', field: '.Object.spec.x' });
    expect(render('{{ .Object.constructor }}', orders)).toEqual({ type: 'missing', field: '.Object.constructor' });
  });

  it('should trim the output and honour {{- and -}} as Go does', () => {
    expect(render('  {{ .ClusterName }}\n', orders)).toEqual({ type: 'rendered', value: 'ws1' });
    expect(render('a  {{- .ClusterName -}}  b', orders)).toEqual({ type: 'rendered', value: 'aws1b' });
    expect(render('a  {{ .ClusterName }}  b', orders)).toEqual({ type: 'rendered', value: 'a  ws1  b' });
  });

  it('should take sha3short length in the call form, cut at 64, and chain hashes', () => {
    expect(render('{{ sha3short .Object.metadata.name 8 }}', orders)).toEqual({ type: 'rendered', value: 'fe3e9668' });
    expect(render('{{ sha3short .Object.metadata.name 100 }}', orders)).toEqual({ type: 'rendered', value: sha3short('orders', 64) });
    expect(render('{{ shortHash .Object.metadata.name }}', orders)).toEqual({ type: 'rendered', value: '9658403816409e66eba2' });
    expect(render('{{ .Object.metadata.name | shortHash | sha3short }}', orders)).toEqual({ type: 'rendered', value: sha3short('9658403816409e66eba2') });
  });
});

describe('sync template compile errors', () => {
  it('should refuse what the subset does not have, saying what is available', () => {
    expect(compileError('{{ .ClusterPath }}')).toContain('only .ClusterName and .Object.<field> are available');
    expect(compileError('{{ .Object.metadata.name | upper }}')).toContain('only sha3short and shortHash can follow "|"');
    expect(compileError('{{ sha256sum .Object.metadata.name }}')).toContain('is not a field (.ClusterName, .Object.<field>) or a function');
    expect(compileError('{{ .Object.metadata.my-field }}')).toContain('field "my-field" is not a template identifier');
    expect(compileError('{{ .ClusterName x }}')).toContain('a field takes no arguments');
  });

  it('should refuse a piped sha3short with a length, as Go would, pointing at the call form', () => {
    expect(compileError('{{ .Object.metadata.name | sha3short 8 }}')).toContain('write "sha3short .Object.<field> 8"');
  });

  it('should refuse bad lengths, empty actions and unclosed actions', () => {
    expect(compileError('{{ sha3short .Object.metadata.name 0 }}')).toContain('the length must be a whole number ≥ 1, got "0"');
    expect(compileError('{{ sha3short .Object.metadata.name 1 2 }}')).toContain('sha3short takes one length');
    expect(compileError('{{ shortHash .Object.metadata.name 8 }}')).toContain('shortHash takes no length');
    expect(compileError('{{ sha3short }}')).toContain('sha3short needs a value');
    expect(compileError('a-{{ }}')).toContain('empty action');
    expect(compileError('{{ .ClusterName | }}')).toContain('empty command in the pipeline');
    expect(compileError('{{ .ClusterName')).toBe('template "{{ .ClusterName": "{{" at offset 0 is never closed with "}}"');
  });

  it('should throw a ConfigError naming where the template was configured', () => {
    expect(() => compileTemplate('{{ .Nope }}', 'published[0].naming.name')).toThrow(ConfigError);
    expect(() => compileTemplate('{{ .Nope }}', 'published[0].naming.name')).toThrow(/^published\[0\]\.naming\.name: template "\{\{ \.Nope \}\}": /);
    expect(compileTemplate('{{ .ClusterName }}', 'here').source).toBe('{{ .ClusterName }}');
  });
});

describe('sync object paths', () => {
  it('should read maps by key and lists by index, and nothing else', () => {
    expect(getPath(orders, 'spec.tags.1')).toBe('b');
    expect(getPath(orders, 'spec.tags.2')).toBeUndefined();
    expect(getPath(orders, 'spec.tags.01')).toBeUndefined();
    expect(getPath(orders, 'spec.replicas.x')).toBeUndefined();
    expect(getPath(orders, 'spec.__proto__')).toBeUndefined();
    expect(getPath({ a: { 'b-c': 1 } }, 'a.b-c')).toBe(1);
  });

  it('should say what is wrong with a path', () => {
    expect(pathProblem('spec.secret')).toBeUndefined();
    expect(pathProblem('')).toBe('a path must not be empty');
    expect(pathProblem('.spec.secret')).toBe('a path has no leading dot: write "spec.secret"');
    expect(pathProblem('spec..secret')).toBe('"spec..secret" has an empty segment');
  });
});
