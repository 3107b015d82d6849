import { QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { BucketTotals } from './components/BucketTotals.tsx';
import { queryClient } from './query-client.ts';
import './styles.css';

function App() {
  return (
    <main>
      <header>
        <h1>Refusal Lens</h1>
      </header>
      <BucketTotals />
    </main>
  );
}

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App />
      </QueryClientProvider>
    </StrictMode>,
  );
}
