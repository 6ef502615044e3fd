/** One line of the bench table (every section returns a list of these). */
export interface Row {
  name: string;
  value: string;
  /** The target, when the issue sets one. */
  target?: string;
  ok?: boolean;
}
