import { loadWords } from '../i18n/words';

// The app fetches the Vietnamese words when a person chooses them; components under test get them at once,
// as a page has them once they arrived, so a test in Vietnamese reads Vietnamese from its first render.
await loadWords('vi');
