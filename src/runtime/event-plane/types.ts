/** Publish/subscribe by subject (e.g. `namespace.dynamo.component.backend.kv-events`). */
export interface EventPlane {
  readonly kind: string;
  /** Fire-and-forget: events published while nobody listens are lost. */
  publish(subject: string, payload: Uint8Array | string): void;
  /**
   * False when nobody listens on `subject`, so a publisher can skip encoding; only planes that can
   * tell (in-process) have it. Remote listeners are never known, so NATS and ZMQ leave it out.
   */
  hasSubscribers?(subject: string): boolean;
  /** Makes `subject` discoverable before the first publish (ZMQ channel records); optional. */
  announce?(subject: string): Promise<void>;
  /** Resolves once subscribed; the result unsubscribes. */
  subscribe(subject: string, handler: (payload: Buffer) => void): Promise<() => void>;
  /**
   * In-process planes only: publishes `value` itself to the subscribers that take values
   * (`subscribeValues`); the others get the bytes of `encode()`, made once and only if one listens.
   */
  publishValue?(subject: string, value: unknown, encode: () => string): void;
  /** In-process planes only: `onValue` gets what `publishValue` publishes as it is, `onBytes` what `publish` does. */
  subscribeValues?(subject: string, onValue: (value: unknown) => void, onBytes: (payload: Buffer) => void): Promise<() => void>;
  close(): Promise<void>;
}

/** `namespace.{ns}` or `namespace.{ns}.component.{c}`: the scope prefix of event subjects. */
export function componentScope(namespace: string, component?: string): string {
  return component === undefined ? `namespace.${namespace}` : `namespace.${namespace}.component.${component}`;
}
