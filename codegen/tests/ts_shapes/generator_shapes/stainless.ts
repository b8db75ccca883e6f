import type { JobStatus } from "./proto/job.js";

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

/** A completion's job, from the ts-proto file. */
export interface CompletionJob {
  completion: Completion;
  status: JobStatus;
}
