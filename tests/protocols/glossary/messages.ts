/** A term and what it means. */
export interface Term {
  /** @minLength 1 */
  word: string;
  meaning: string;
  seeAlso?: string[];
}
