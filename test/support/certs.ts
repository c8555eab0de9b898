// Certificates made with openssl at test time: a CA, a server certificate for 127.0.0.1/localhost
// and a client certificate, both signed by the CA; and a second CA that signed neither.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Pki {
  dir: string;
  ca: Buffer;
  caPath: string;
  serverCert: string;
  serverKey: string;
  clientCert: Buffer;
  clientKey: Buffer;
  clientCertPath: string;
  clientKeyPath: string;
  /** A CA that signed none of the certificates above. */
  otherCaPath: string;
}

export function makePki(): Pki {
  const dir = mkdtempSync(path.join(tmpdir(), 'dynamo-tls-'));
  const f = (name: string) => path.join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  for (const ca of ['ca', 'other-ca']) {
    openssl('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${ca}.key`), '-out', f(`${ca}.pem`), '-days', '1', '-subj', `/CN=dynamo-ts test ${ca}`);
  }
  writeFileSync(f('server.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\n');
  writeFileSync(f('client.ext'), 'extendedKeyUsage=clientAuth\n');
  for (const who of ['server', 'client']) {
    openssl('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f(`${who}.key`), '-out', f(`${who}.csr`), '-subj', `/CN=${who === 'server' ? 'localhost' : 'test client'}`);
    openssl('x509', '-req', '-in', f(`${who}.csr`), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out', f(`${who}.pem`), '-days', '1', '-extfile', f(`${who}.ext`));
  }
  return {
    dir,
    ca: readFileSync(f('ca.pem')),
    caPath: f('ca.pem'),
    serverCert: f('server.pem'),
    serverKey: f('server.key'),
    clientCert: readFileSync(f('client.pem')),
    clientKey: readFileSync(f('client.key')),
    clientCertPath: f('client.pem'),
    clientKeyPath: f('client.key'),
    otherCaPath: f('other-ca.pem'),
  };
}
