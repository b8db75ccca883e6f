/** A term and what it means. */
export interface Term {
  /** @minLength 1 */
  word: string;
  meaning: string;
  /**
   * Related terms, each named once.
   * @uniqueItems
   */
  seeAlso?: string[];
  /**
   * How much of the term the reader knows, in quarters.
   * @multipleOf 0.25
   */
  known?: number;
  /**
   * How hard the term is: above 0, below 10.
   * @exclusiveMinimum 0
   * @exclusiveMaximum 10
   */
  difficulty?: number;
}
