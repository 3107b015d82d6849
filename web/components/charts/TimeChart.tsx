import { Bar, BarChart, CartesianGrid, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import {
  type ChartSeries,
  type Threshold,
  type TimeRow,
  type TooltipContent,
  timeAxisLabel,
  type ValueAxis,
} from '../../prepare/chart.ts';

export interface TimeChartProps {
  kind: 'stacked-bars' | 'lines';
  rows: readonly TimeRow[];
  series: readonly ChartSeries[];
  height: number;
  valueAxis: ValueAxis;
  /** One a row: what hovering that step shows. */
  tooltips: readonly TooltipContent[];
  legend?: boolean;
  /** A dot on every point: where gaps (nulls) are common, a lone value between two would otherwise not show. */
  dots?: boolean;
  thresholds?: readonly Threshold[];
  /** Called with the clicked step's index. */
  onSelect?: (index: number) => void;
  testId?: string;
}

const TICK = { fill: 'var(--muted)', fontSize: 12 };

function ChartTooltip({ content }: { content: TooltipContent | undefined }) {
  if (content === undefined) return null;
  return (
    <div className="chart-tooltip">
      <p className="tooltip-title">{content.title}</p>
      <table>
        <tbody>
          {content.lines.map((line) => (
            <tr key={line.label} className={line.total ? 'tooltip-total' : undefined}>
              <th scope="row">
                {line.colour === undefined ? null : <span className="swatch" style={{ background: line.colour }} />}{' '}
                {line.label}
              </th>
              <td>{line.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/**
 * Every chart of the dashboard: steps over time as stacked bars or lines, on one time axis. The one module that
 * imports recharts; what it draws (series, colours, tooltip text) is decided in prepare/.
 */
export function TimeChart(props: TimeChartProps) {
  const { kind, rows, series, height, valueAxis, tooltips, legend, dots, thresholds = [], onSelect, testId } = props;
  const Chart = kind === 'stacked-bars' ? BarChart : LineChart;
  const axisLabel = timeAxisLabel(rows[0]?.start ?? 0, rows.at(-1)?.start ?? 0);
  return (
    <div className="chart" data-testid={testId}>
      <div style={{ height }} className={onSelect ? 'clickable' : undefined}>
        <Chart
          responsive
          style={{ width: '100%', height: '100%' }}
          data={[...rows]}
          margin={{ top: 12, right: 12, bottom: 0, left: 0 }}
          // A share of each step, not a pixel: at 168 hourly bars on a phone a 1 px gap left bars under a pixel wide.
          barCategoryGap="8%"
          onClick={(state) => {
            const index = Number(state.activeTooltipIndex);
            if (onSelect && Number.isInteger(index) && rows[index] !== undefined) onSelect(index);
          }}
        >
          <CartesianGrid vertical={false} stroke="var(--grid)" />
          <XAxis dataKey="start" tickFormatter={axisLabel} minTickGap={48} tick={TICK} stroke="var(--grid)" />
          <YAxis
            width={valueAxis.width}
            domain={valueAxis.domain}
            ticks={valueAxis.ticks}
            allowDecimals={!valueAxis.integers}
            tickFormatter={valueAxis.format}
            tick={TICK}
            stroke="var(--grid)"
          />
          <Tooltip
            cursor={kind === 'stacked-bars' ? { fill: 'var(--cursor)' } : true}
            isAnimationActive={false}
            content={({ active, activeIndex }) => (
              <ChartTooltip content={active ? tooltips[Number(activeIndex)] : undefined} />
            )}
          />
          {thresholds.map((line) => (
            <ReferenceLine
              key={line.label}
              y={line.value}
              stroke={line.colour}
              strokeDasharray={line.dashed ? '4 4' : undefined}
              label={{ value: line.label, position: 'insideTopLeft', fill: line.colour, fontSize: 11 }}
            />
          ))}
          {series.map((s) =>
            kind === 'stacked-bars' ? (
              <Bar
                key={s.key}
                dataKey={s.key}
                name={s.name}
                stackId="stack"
                fill={s.colour}
                isAnimationActive={false}
              />
            ) : (
              <Line
                key={s.key}
                dataKey={s.key}
                name={s.name}
                stroke={s.colour}
                strokeWidth={2}
                dot={dots ? { r: 2 } : false}
                connectNulls={false}
                isAnimationActive={false}
              />
            ),
          )}
        </Chart>
      </div>
      {legend ? (
        <ul className="legend">
          {series.map((s) => (
            <li key={s.key}>
              <span className="swatch" style={{ background: s.colour }} /> {s.name}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
