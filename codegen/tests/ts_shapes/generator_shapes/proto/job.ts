// As ts-proto writes a proto3 message: every field present, a message field `T | undefined`,
// enums numbered from 0 with an UNRECOGNIZED of -1.

/** Where a job is in its life. */
export declare enum JobState {
  /** JOB_STATE_UNSPECIFIED - not said. */
  JOB_STATE_UNSPECIFIED = 0,
  JOB_STATE_QUEUED = 1,
  JOB_STATE_RUNNING = 2,
  JOB_STATE_DONE = 3,
  UNRECOGNIZED = -1,
}

export interface JobStatus {
  state: JobState;
  detail: JobDetail | undefined;
  finishedAt?: string | undefined;
  labels: { [key: string]: string } | undefined;
}

export interface JobDetail {
  attempts: number;
  summary: string;
  /** A proto `bytes` field, as ts-proto types it for Node. */
  checksum: Buffer;
  trace?: Uint8Array | undefined;
}
