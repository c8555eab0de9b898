// Why an etcd call failed, in one line: apart from etcd-backend.ts, so that a user of etcd elsewhere
// (a response store) words it the same without loading the etcd client through this index.

/** grpc-js's "14 UNAVAILABLE: No connection established. Last error: Error: connect ECONNREFUSED ..." → the last error. */
export function etcdReason(err: Error): string {
  const last = /Last error: (?:Error: )?(.*?)\.?(?: Resolution note:.*)?$/.exec(err.message);
  return (last?.[1] ?? err.message).trim();
}
