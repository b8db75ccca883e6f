// The root of a `.d.ts` spread over several files, as generators split their output: the
// declarations of every file it imports or re-exports are read with its own.
export * from "./quicktype";
export { Completion, Block } from './stainless.js';
import { JobStatus } from "./proto/job";
import type { CompletionJob } from './stainless.js';

// As hey-api writes a JSON Schema's `const` and `enum` of numbers, and `not` as `?: never`.

export type SchemaVersion = 1 | 2;

export type Sample = {
  kind: 'sample';
  version: SchemaVersion;
  retries?: 0 | 1 | 2 | 3;
  ratio?: 0.5;
  legacyId?: never;
  cleared: null;
  note?: string | null | undefined;
};

/** Holds a type from each file. */
export interface Everything {
  status: JobStatus;
  palette: Palette;
  sample: Sample;
  job: CompletionJob;
}
