import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import './styles.css';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element to render into');

// No ApolloProvider here: the store's first load draws without Apollo Client (first-load-query.ts), and each
// other page gets the client with its code (lazy-page.ts).
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
