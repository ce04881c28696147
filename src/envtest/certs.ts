// The credentials of a throwaway kube-apiserver: a CA and a serving certificate for 127.0.0.1 and
// localhost (openssl CLI), a service-account key pair (node:crypto), static bearer tokens, and
// kubeconfig files that verify the server against that CA.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Runs the openssl CLI in `cwd`; throws with its stderr (and a hint that the CLI may be missing).
 *
 * @example
 * ```ts
 * openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.crt', '-subj', '/CN=ca'], '/tmp/pki');
 * ```
 */
export function openssl(args: readonly string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (err: unknown) {
    const stderr =
      typeof err === 'object' && err !== null && 'stderr' in err && Buffer.isBuffer(err.stderr)
        ? err.stderr.toString('utf8')
        : String(err);
    throw new Error(`openssl ${args.join(' ')} failed (is the openssl CLI installed?): ${stderr}`, { cause: err });
  }
}

/**
 * Files of a throwaway PKI written by {@link makeServingCerts}.
 *
 * @example
 * ```ts
 * const pki: ServingCerts = makeServingCerts('/tmp/pki'); // { caFile: '/tmp/pki/ca.crt', ... }
 * ```
 */
export interface ServingCerts {
  readonly caFile: string;
  readonly certFile: string;
  readonly keyFile: string;
  /** Service-account token signing key (PKCS#8 PEM) and its public key. */
  readonly saKeyFile: string;
  readonly saPubFile: string;
}

/**
 * Writes a CA valid for 7 days, a serving certificate for 127.0.0.1/localhost signed by it, and a
 * service-account key pair into `dir`.
 *
 * @example
 * ```ts
 * const { caFile, certFile, keyFile } = makeServingCerts('/tmp/pki');
 * ```
 */
export function makeServingCerts(dir: string): ServingCerts {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '7', '-subj', '/CN=rxfleet-envtest-ca',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign'],
    dir,
  );
  openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=kube-apiserver'], dir);
  writeFileSync(
    join(dir, 'server.ext'),
    [
      'basicConstraints=CA:FALSE',
      'keyUsage=critical,digitalSignature,keyEncipherment',
      'extendedKeyUsage=serverAuth',
      'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc',
      '',
    ].join('\n'),
  );
  openssl(
    ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt',
      '-days', '7', '-extfile', 'server.ext'],
    dir,
  );
  const sa = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const saKeyFile = join(dir, 'sa.key');
  const saPubFile = join(dir, 'sa.pub');
  writeFileSync(saKeyFile, sa.privateKey, { mode: 0o600 });
  writeFileSync(saPubFile, sa.publicKey);
  return { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key'), saKeyFile, saPubFile };
}

/**
 * Writes a kubeconfig (JSON, which is valid YAML; mode 0600) with one context named after `user`:
 * `server`, verified against `caFile`, authenticated with a bearer `token`.
 *
 * @example
 * ```ts
 * writeTokenKubeconfig('/tmp/admin.kubeconfig', 'https://127.0.0.1:6443', '/tmp/pki/ca.crt', 'admin', 'secret-token');
 * ```
 */
export function writeTokenKubeconfig(path: string, server: string, caFile: string, user: string, token: string): void {
  const doc = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'kube-apiserver', cluster: { server, 'certificate-authority-data': readFileSync(caFile).toString('base64') } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: user, context: { cluster: 'kube-apiserver', user } }],
    'current-context': user,
    preferences: {},
  };
  writeFileSync(path, `${JSON.stringify(doc, null, 2)}\n`, { mode: 0o600 });
}
