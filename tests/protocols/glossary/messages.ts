/** A term and what it means. */
export interface Term {
  /** @minLength 1 */
  word: string;
  meaning: string;
  seeAlso?: string[];
  /**
   * How much of the term the reader knows, in quarters.
   * @multipleOf 0.25
   */
  known?: number;
}
