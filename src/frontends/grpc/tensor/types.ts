// The tensor data model lives with the other wire types; the gRPC adapter uses it from here.
export type * from '../../../protocols/tensor.js';
