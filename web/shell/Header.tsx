import { Link } from '../components/Link.tsx';
import type { Route } from '../router.ts';
import { useUrl } from '../use-url.ts';
import { RangePicker } from './RangePicker.tsx';
import { RefreshPicker, useAutoRefresh } from './RefreshPicker.tsx';

const NAV: readonly { path: string; label: string; active: readonly Route['name'][] }[] = [
  { path: '/', label: 'Overview', active: ['overview'] },
  { path: '/servers', label: 'Servers', active: ['servers', 'server', 'storm'] },
  { path: '/events', label: 'Events', active: ['events'] },
  { path: '/clients', label: 'Clients', active: ['clients'] },
  { path: '/actionability', label: 'Actionability', active: ['actionability'] },
  { path: '/alerts', label: 'Alerts', active: ['alerts', 'alert_rule'] },
  { path: '/ingest', label: 'Ingest', active: ['ingest'] },
];

/** Navigation, and the two controls every screen shares: the time range and the refresh interval. */
export function Header() {
  const { route, range, refresh, setParams, link } = useUrl();
  useAutoRefresh(refresh);
  return (
    <header className="app-header">
      <div className="brand-row">
        <Link href={link('/')} className="brand">
          Refusal Lens
        </Link>
        <nav aria-label="Screens">
          {NAV.map((item) => (
            <Link
              key={item.path}
              href={link(item.path)}
              aria-current={item.active.includes(route.name) ? 'page' : undefined}
            >
              {item.label}
            </Link>
          ))}
        </nav>
      </div>
      <div className="controls">
        <RangePicker range={range} onChange={(patch) => setParams(patch)} />
        <RefreshPicker
          choice={refresh}
          onChange={(choice) => setParams({ refresh: choice === 'off' ? null : choice }, { replace: true })}
        />
      </div>
    </header>
  );
}
