/**
 * `durable-agent/s3`: a blob and claim store in an S3-compatible bucket (AWS S3, MinIO, R2), shared by
 * workers on any number of machines. Needs the optional package `@aws-sdk/client-s3`
 * (`npm install @aws-sdk/client-s3`), loaded when the first S3 store is made. The setting
 * `DURABLE_AGENT_STORE=s3://bucket/prefix` uses it without importing this entry.
 */
export { S3ObjectStore, S3StoreError } from '../integrations/store/s3-objects';
export type { S3ObjectStoreOptions } from '../integrations/store/s3-objects';
