// --tls-cert-path / --tls-key-path / --tls-client-ca-cert-path: checked together and read once,
// shared by the HTTP listener and the KServe gRPC listener.

import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config/index.js';

export interface TlsFiles {
  cert: Buffer;
  key: Buffer;
  /** Client CA bundle: when present, clients must present a certificate it signed (mTLS). */
  ca?: Buffer;
}

function read(flag: string, file: string): Buffer {
  try {
    return readFileSync(file);
  } catch (err) {
    throw new ConfigError(`${flag} '${file}' cannot be read: ${(err as Error).message}`);
  }
}

/** Throws ConfigError (exit 2) when the TLS options are given only in part (checked before anything listens). */
function checkTlsOptions(config: Config): void {
  const { tlsCertPath, tlsKeyPath, tlsClientCaCertPath } = config;
  if ((tlsCertPath === undefined) !== (tlsKeyPath === undefined)) {
    throw new ConfigError('--tls-cert-path and --tls-key-path must be given together');
  }
  if (tlsClientCaCertPath !== undefined && tlsCertPath === undefined) {
    throw new ConfigError('--tls-client-ca-cert-path requires --tls-cert-path and --tls-key-path');
  }
  if (config.useTls && ((config.certFile ?? tlsCertPath) === undefined || (config.keyFile ?? tlsKeyPath) === undefined)) {
    throw new ConfigError('--use-tls needs --cert-file and --key-file (or --tls-cert-path and --tls-key-path)');
  }
}

/** The PEM contents for HTTPS / gRPC TLS, or undefined without --tls-cert-path. */
export function tlsFiles(config: Config): TlsFiles | undefined {
  checkTlsOptions(config);
  if (config.tlsCertPath === undefined) return undefined;
  return {
    cert: read('--tls-cert-path', config.tlsCertPath),
    key: read('--tls-key-path', config.tlsKeyPath!),
    ca: config.tlsClientCaCertPath === undefined ? undefined : read('--tls-client-ca-cert-path', config.tlsClientCaCertPath),
  };
}

/**
 * TLS for the gRPC listener: the shared --tls-* files; or, with the gRPC guide's --use-tls,
 * --cert-file/--key-file (falling back to the shared ones) with the shared client CA.
 */
export function grpcTlsFiles(config: Config): TlsFiles | undefined {
  const shared = tlsFiles(config);
  if (!config.useTls) return shared;
  return {
    cert: read('--cert-file', (config.certFile ?? config.tlsCertPath)!),
    key: read('--key-file', (config.keyFile ?? config.tlsKeyPath)!),
    ca: shared?.ca,
  };
}
