// `npm run test:e2e` runs test/e2e/ui/*.test.mjs: this pulls in the chat e2e (chat.e2e.mjs, which also
// runs on its own: `node test/e2e/ui/chat.e2e.mjs`).
import './chat.e2e.mjs';
