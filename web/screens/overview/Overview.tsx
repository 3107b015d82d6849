import { useUrl } from '../../use-url.ts';
import { FiringAlerts } from '../alerts/FiringAlerts.tsx';
import { AlarmPanel } from './AlarmPanel.tsx';
import { EmptyRangeOffer } from './EmptyRangeOffer.tsx';
import { NowBanner } from './NowBanner.tsx';
import { SeriesPanel } from './SeriesPanel.tsx';
import { StormsPanel } from './StormsPanel.tsx';
import { TopServersPanel } from './TopServersPanel.tsx';
import { TotalsRow } from './TotalsRow.tsx';
import { TrimPanel } from './TrimPanel.tsx';

/** The answer first (what is storming now), then the numbers, then where to look next. */
export function Overview() {
  const { range } = useUrl();
  const scope = { range };
  return (
    <>
      <h1 className="screen-title">Overview</h1>
      <EmptyRangeOffer scope={scope} />
      <NowBanner scope={scope} />
      <FiringAlerts />
      <TotalsRow scope={scope} />
      <SeriesPanel scope={scope} />
      <div className="grid">
        <StormsPanel scope={scope} />
        <TopServersPanel scope={scope} />
        <AlarmPanel scope={scope} />
        <TrimPanel scope={scope} />
      </div>
    </>
  );
}
