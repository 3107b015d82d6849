import { lazy, Suspense, useEffect } from 'react';
import { Link } from './components/Link.tsx';
import type { Route } from './router.ts';
import { ActionabilityScreen } from './screens/actionability/ActionabilityScreen.tsx';
import { ClientsScreen } from './screens/clients/ClientsScreen.tsx';
import { EventsScreen } from './screens/events/EventsScreen.tsx';
import { IngestScreen } from './screens/ingest/IngestScreen.tsx';
import { Overview } from './screens/overview/Overview.tsx';
import { ServerScreen } from './screens/server/ServerScreen.tsx';
import { ServersScreen } from './screens/servers/ServersScreen.tsx';
import { StormScreen } from './screens/storm/StormScreen.tsx';
import { AnalysisLag } from './shell/AnalysisLag.tsx';
import { Header } from './shell/Header.tsx';
import { RetentionNote } from './shell/RetentionNote.tsx';
import { useUrl } from './use-url.ts';

/** Alerts are a screen of their own, rarely the first one opened: they load when visited. */
const AlertsScreen = lazy(async () => ({ default: (await import('./screens/alerts/AlertsScreen.tsx')).AlertsScreen }));
const RuleEditorScreen = lazy(async () => ({
  default: (await import('./screens/alerts/RuleEditor.tsx')).RuleEditorScreen,
}));

function titleOf(route: Route): string {
  switch (route.name) {
    case 'overview':
      return 'Overview';
    case 'server':
      return route.server;
    case 'storm':
      return 'Storm';
    case 'alert_rule':
      return route.id === 'new' ? 'New alert rule' : 'Alert rule';
    case 'not_found':
      return 'No such screen';
    default:
      return route.name[0]?.toUpperCase() + route.name.slice(1);
  }
}

function Screen() {
  const { route, link } = useUrl();
  useEffect(() => {
    document.title = `${titleOf(route)} · Refusal Lens`;
  }, [route]);
  switch (route.name) {
    case 'overview':
      return <Overview />;
    case 'servers':
      return <ServersScreen />;
    case 'server':
      return <ServerScreen key={route.server} server={route.server} />;
    case 'storm':
      return <StormScreen key={route.id} id={route.id} />;
    case 'events':
      return <EventsScreen />;
    case 'clients':
      return <ClientsScreen />;
    case 'actionability':
      return <ActionabilityScreen />;
    case 'ingest':
      return <IngestScreen />;
    case 'alerts':
      return <AlertsScreen />;
    case 'alert_rule':
      return <RuleEditorScreen key={route.id} id={route.id} />;
    case 'not_found':
      return (
        <section className="panel">
          <h1>No such screen</h1>
          <p>
            Nothing lives at <code>{route.path}</code>. <Link href={link('/')}>Go to the overview</Link>.
          </p>
        </section>
      );
  }
}

export function App() {
  return (
    <>
      <Header />
      <main>
        <AnalysisLag />
        <RetentionNote />
        <Suspense fallback={<div className="skeleton" style={{ height: 480 }} />}>
          <Screen />
        </Suspense>
      </main>
    </>
  );
}
