import { formatWindow } from '../format.ts';
import { PRESETS, rangeParams, resolveRange, type TimeRange } from '../time-range.ts';
import type { Patch } from '../url-state.ts';
import { CustomRange } from './CustomRange.tsx';

interface RangePickerProps {
  range: TimeRange;
  onChange: (patch: Patch) => void;
}

/**
 * Presets relative to now, or an absolute window: one a shared link fixed, "Pin" made of a preset, or typed after
 * "Custom".
 */
export function RangePicker({ range, onChange }: RangePickerProps) {
  const preset = 'preset' in range ? range.preset : null;
  return (
    <div className="range-picker">
      <fieldset className="segmented" aria-label="Time range">
        {PRESETS.map((option) => (
          <button
            key={option}
            type="button"
            aria-pressed={preset === option}
            onClick={() => onChange(rangeParams({ preset: option }))}
          >
            {option}
          </button>
        ))}
        <CustomRange range={range} onChange={onChange} />
      </fieldset>
      {'preset' in range ? (
        <button
          type="button"
          className="quiet"
          title="Fix this window in the address, so that a shared link shows exactly this data"
          onClick={() => onChange(rangeParams(resolveRange(range, Date.now())))}
        >
          Pin
        </button>
      ) : (
        <span className="window-chip" data-testid="fixed-window">
          {formatWindow(range.from, range.to)}
        </span>
      )}
    </div>
  );
}
