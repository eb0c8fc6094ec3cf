// The npm package s3rver ships no types: the part the tests use.
declare module 's3rver' {
  export default class S3rver {
    constructor(options: {
      address?: string;
      port?: number;
      silent?: boolean;
      directory: string;
      configureBuckets?: Array<{ name: string; configs?: Array<string | Buffer> }>;
      allowMismatchedSignatures?: boolean;
    });
    run(): Promise<import('node:net').AddressInfo>;
    close(): Promise<void>;
  }
}
