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
}

// As quicktype writes a string enum, and a `const enum` beside it.

export enum Shade {
  Light = "light",
  Dark = "dark",
}

export const enum Weight {
  Thin = "thin",
  Bold = "bold",
}

/** Numbered as TypeScript numbers them, from 0. */
export enum Step {
  First,
  Second,
  Third,
}

export interface Palette {
  shade: Shade;
  weight?: Weight;
  step: Step;
}

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

// As Stainless writes a response with its nested types in a namespace of the same name, and a
// union tagged by enum members.

export interface Completion {
  id: string;
  choices: Array<Completion.Choice>;
  usage?: Completion.Usage | null;
}

export namespace Completion {
  export interface Choice {
    index: number;
    finish: Choice.Finish;
  }

  export namespace Choice {
    export type Finish = 'stop' | 'length';
  }

  export interface Usage {
    total: number;
  }
}

export enum BlockKind {
  Text = 'text',
  Image = 'image',
}

export interface TextBlock {
  kind: BlockKind.Text;
  text: string;
}

export interface ImageBlock {
  kind: BlockKind.Image;
  url: string;
}

export type Block = TextBlock | ImageBlock;
