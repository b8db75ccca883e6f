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
