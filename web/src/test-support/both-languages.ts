import { configure } from '@testing-library/react';
import { loadWords } from '../i18n/words';

// The app fetches the Vietnamese words when a person chooses them; components under test get them at once,
// as a page has them once they arrived, so a test in Vietnamese reads Vietnamese from its first render.
await loadWords('vi');

// findBy… and waitFor give up after 1 s by default; a first render on a busy machine (the suite runs beside a
// second copy of itself) can take longer than that without anything being wrong.
configure({ asyncUtilTimeout: 5_000 });
