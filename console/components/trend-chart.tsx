import 'uplot/dist/uPlot.min.css';

import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';

import type { ComplianceTrend } from '../api/compliance';
import { formatDay, formatNumber } from '../format';

const HEIGHT = 240;
const DAY_SECONDS = 86_400;

/** The trend's days as uPlot's columns: the days (UTC midnight, seconds), passing, failing; a day not recorded yet is a gap. */
function columns(trend: ComplianceTrend): uPlot.AlignedData {
  return [
    trend.days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000),
    trend.days.map((day) => day.resources?.passing ?? null),
    trend.days.map((day) => day.resources?.failing ?? null),
  ];
}

const options = (width: number): uPlot.Options => ({
  width,
  height: HEIGHT,
  // The days are UTC days: the axis shows them as such, whatever the browser's zone.
  tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
  scales: { x: { time: true }, y: { range: (_chart, _min, max) => [0, Math.max(1, max)] } },
  // The axes' labels in the console's language (uPlot's own are English dates and navigator.language numbers).
  axes: [
    { space: 60, incrs: [DAY_SECONDS, 7 * DAY_SECONDS, 30 * DAY_SECONDS], values: (_chart, splits) => splits.map(formatDay) },
    { label: 'Resources', values: (_chart, splits) => splits.map(formatNumber) },
  ],
  series: [
    { label: 'Day', value: '{YYYY}-{MM}-{DD}' },
    { label: 'Passing', stroke: '#1a7f37', width: 2, points: { show: true } },
    { label: 'Failing', stroke: '#b42318', width: 2, points: { show: true } },
  ],
});

/**
 * Resources passing and failing at the end of each day, drawn by uPlot, with the same numbers in a
 * table (for screen readers, and to read a day exactly). `data-points` is the number of days the
 * chart holds.
 */
export function TrendChart({ trend }: { trend: ComplianceTrend }) {
  const host = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const chart = new uPlot(options(element.clientWidth), columns(trend), element);
    figure.current?.setAttribute('data-points', String(chart.data[0].length));
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: HEIGHT }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
  }, [trend]);

  return (
    <figure class="trend" ref={figure}>
      <figcaption>
        Resources passing and failing at the end of each day (UTC), {trend.from} to {trend.to}
      </figcaption>
      <div class="trend-chart" ref={host} aria-hidden="true" />
      <details>
        <summary>The days as a table</summary>
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Compliance per day">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Resources</th>
                <th scope="col">Passing</th>
                <th scope="col">Failing</th>
              </tr>
            </thead>
            <tbody>
              {trend.days.map((day) => (
                <tr key={day.date}>
                  <td>{day.date}</td>
                  {day.resources ? (
                    <>
                      <td>{formatNumber(day.resources.total)}</td>
                      <td>{formatNumber(day.resources.passing)}</td>
                      <td>{formatNumber(day.resources.failing)}</td>
                    </>
                  ) : (
                    <td colSpan={3}>not recorded yet</td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
