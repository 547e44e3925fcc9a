export interface Threshold {
  label: string;
  color: string;
  min?: number;
  max?: number;
}

/** The first range holding `value` (`min` and `max` both included; a missing bound is open), if any. */
export function matchingThreshold(value: number, thresholds: readonly Threshold[]): Threshold | undefined {
  return thresholds.find((range) => (range.min === undefined || value >= range.min) && (range.max === undefined || value <= range.max));
}
