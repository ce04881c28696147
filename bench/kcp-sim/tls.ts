// kcp-sim's serving certificate: a self-signed P-256 certificate for 127.0.0.1, made with the
// openssl command (node:crypto makes keys but not certificates), and the bearer token clients must
// send. Clients verify the certificate against it as their CA, as they verify kcp's.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A key, its certificate and a bearer token. */
export interface SimCredentials {
  readonly key: string;
  readonly cert: string;
  readonly token: string;
}

/**
 * Makes a key and self-signed certificate for `127.0.0.1` (valid one day) and a random token.
 *
 * @example
 * ```ts
 * const { key, cert, token } = simCredentials();
 * ```
 * @returns the credentials.
 */
export function simCredentials(): SimCredentials {
  const dir = mkdtempSync(join(tmpdir(), 'kcp-sim-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', keyPath, '-out', certPath, '-days', '1', '-subj', '/CN=kcp-sim', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(keyPath, 'utf8'), cert: readFileSync(certPath, 'utf8'), token: randomBytes(24).toString('base64url') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A kubeconfig (JSON, which is valid YAML) for `server` with the CA and token.
 *
 * @example
 * ```ts
 * const yaml = kubeconfigJson('https://127.0.0.1:6443/clusters/root:provider', cert, token);
 * ```
 * @param server - the server URL.
 * @param ca - the CA certificate, PEM.
 * @param token - the bearer token.
 * @returns the kubeconfig document.
 */
export function kubeconfigJson(server: string, ca: string, token: string): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'sim', cluster: { server, 'certificate-authority-data': Buffer.from(ca).toString('base64') } }],
    users: [{ name: 'sim', user: { token } }],
    contexts: [{ name: 'sim', context: { cluster: 'sim', user: 'sim' } }],
    'current-context': 'sim',
  });
}
