/** One measured figure, printed as the JSON line every benchmark ends with. */
export interface Figure {
  measure: string;
  value: number;
  unit: string;
  goal: string;
}

export function printFigures(bench: string, figures: Figure[]): void {
  for (const f of figures)
    console.log(JSON.stringify({ bench, measure: f.measure, value: f.value, unit: f.unit, goal: f.goal }));
}
