// --tls-cert-path / --tls-key-path / --tls-client-ca-cert-path: checked together and read once,
// shared by the HTTP listener and the KServe gRPC listener. Also the TLS of the runtime's planes:
// --tcp-tls-* and --nats-tls-*.

import { readFileSync } from 'node:fs';
import { ConfigError, type Config } from '../config/index.js';
import type { NatsTls, TcpTls } from '../runtime/index.js';

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

/**
 * --tcp-tls-*: TLS for the TCP request plane and its response streams. Every process both listens
 * and dials (a worker takes requests and dials the caller back; a frontend dials workers and takes
 * their streams), so the server certificate and key turn TLS on and every other file needs them.
 */
export function tcpTlsFiles(config: Config): TcpTls | undefined {
  const { tcpTlsCertPath, tcpTlsKeyPath, tcpTlsCaCertPath, tcpTlsClientCertPath, tcpTlsClientKeyPath, tcpTlsClientCaCertPath, tcpTlsInsecure, tcpTlsServerName } = config;
  if ((tcpTlsCertPath === undefined) !== (tcpTlsKeyPath === undefined)) {
    throw new ConfigError('--tcp-tls-cert-path and --tcp-tls-key-path must be given together');
  }
  if ((tcpTlsClientCertPath === undefined) !== (tcpTlsClientKeyPath === undefined)) {
    throw new ConfigError('--tcp-tls-client-cert-path and --tcp-tls-client-key-path must be given together');
  }
  const others = [tcpTlsCaCertPath, tcpTlsClientCertPath, tcpTlsClientCaCertPath, tcpTlsServerName, tcpTlsInsecure || undefined].some((p) => p !== undefined);
  if (tcpTlsCertPath === undefined) {
    if (others) {
      throw new ConfigError(
        'the --tcp-tls-* options need --tcp-tls-cert-path and --tcp-tls-key-path: every process of the TCP request plane listens (workers for requests, frontends for response streams)',
      );
    }
    return undefined;
  }
  const optional = (flag: string, file: string | undefined): Buffer | undefined => (file === undefined ? undefined : read(flag, file));
  return {
    cert: read('--tcp-tls-cert-path', tcpTlsCertPath),
    key: read('--tcp-tls-key-path', tcpTlsKeyPath!),
    ca: optional('--tcp-tls-ca-cert-path', tcpTlsCaCertPath),
    clientCert: optional('--tcp-tls-client-cert-path', tcpTlsClientCertPath),
    clientKey: optional('--tcp-tls-client-key-path', tcpTlsClientKeyPath),
    clientCa: optional('--tcp-tls-client-ca-cert-path', tcpTlsClientCaCertPath),
    insecure: tcpTlsInsecure,
    serverName: tcpTlsServerName,
    handshakeTimeoutMs: config.tcpTlsHandshakeTimeout * 1000,
  };
}

/** --nats-tls-*: TLS for every NATS connection, or undefined when none of them is given. */
export function natsTlsOptions(config: Config): NatsTls | undefined {
  const { natsTlsCaCertPath, natsTlsClientCertPath, natsTlsClientKeyPath, natsTlsInsecure } = config;
  if ((natsTlsClientCertPath === undefined) !== (natsTlsClientKeyPath === undefined)) {
    throw new ConfigError('--nats-tls-client-cert-path and --nats-tls-client-key-path must be given together');
  }
  if (natsTlsCaCertPath === undefined && natsTlsClientCertPath === undefined && !natsTlsInsecure) return undefined;
  return { caFile: natsTlsCaCertPath, certFile: natsTlsClientCertPath, keyFile: natsTlsClientKeyPath, insecure: natsTlsInsecure };
}
